export function total(): number { return 0; }
