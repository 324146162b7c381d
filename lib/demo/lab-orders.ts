/** The seed article's five lab orders (amounts in ARS minor units: 2500000 = $ 25.000,00). */
export const LAB_ORDERS: ReadonlyArray<{ id: string; amount: number; currency: string }> = [
  { id: "ord_1041", amount: 2_500_000, currency: "ARS" },
  { id: "ord_1042", amount: 1_850_000, currency: "ARS" },
  { id: "ord_1043", amount: 4_200_000, currency: "ARS" },
  { id: "ord_1044", amount: 3_000_000, currency: "ARS" },
  { id: "ord_1045", amount: 1_500_000, currency: "ARS" },
];
