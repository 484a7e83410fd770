// Placeholder until the HTTP runtime lands (issue 2).
export interface FwApplication { readonly kind: 'http' }
export function createHttpApplication(): FwApplication { throw new Error('HTTP runtime not built yet'); }
