/** The OpenAPI tag of the school administration routes (people and roster imports; school admins only). */
export const schoolTag = { name: "school", description: "School administration: people and roster imports (school admins)" };
