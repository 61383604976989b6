// When a summarizer call may reserve its cost in a tenant's window (both stores, and each
// process's own count while the store is down): while the reservation stays within the allowance,
// so that a burst cannot spend more than it; or as the window's first call, so that a tenant whose
// allowance is smaller than one summary still gets one per window. (The Redis script says the same.)
export function spendFits(spent: number, tokens: number, limit: number): boolean {
  if (spent >= limit) return false;
  return spent === 0 || spent + tokens <= limit;
}
