/**
 * Whether `work` settles (resolves or rejects) before a sentinel timer of `ms` fires: an order,
 * for bounds that hold by a wide margin (a call bounded by its timeout against a sentinel many
 * times longer), where a measured duration would flake on a loaded machine.
 */
export async function settlesBefore(work: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const sentinel = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([
      work.then(
        () => true,
        () => true,
      ),
      sentinel,
    ]);
  } finally {
    clearTimeout(timer);
  }
}
