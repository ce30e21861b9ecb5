export const ocrSchemas = {};
