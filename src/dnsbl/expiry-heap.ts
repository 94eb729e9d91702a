/** When each expiring listing leaves the index: a binary min-heap of (expiresAt, ip). */
export interface Expiry {
  at: number;
  ip: string;
}

export interface ExpiryHeap {
  push(item: Expiry): void;
  /** The earliest expiry, or undefined when empty. */
  peek(): Expiry | undefined;
  pop(): Expiry | undefined;
}

export function createExpiryHeap(): ExpiryHeap {
  const heap: Expiry[] = [];
  return {
    push(item) {
      heap.push(item);
      siftUp(heap, heap.length - 1);
    },
    peek: () => heap[0],
    pop() {
      const top = heap[0];
      const last = heap.pop();
      if (heap.length > 0 && last) {
        heap[0] = last;
        siftDown(heap, 0);
      }
      return top;
    },
  };
}

function at(heap: Expiry[], i: number): number {
  return (heap[i] as Expiry).at;
}

function swap(heap: Expiry[], i: number, j: number): void {
  const t = heap[i] as Expiry;
  heap[i] = heap[j] as Expiry;
  heap[j] = t;
}

function siftUp(heap: Expiry[], from: number): void {
  let i = from;
  while (i > 0) {
    const p = (i - 1) >> 1;
    if (at(heap, p) <= at(heap, i)) break;
    swap(heap, i, p);
    i = p;
  }
}

function siftDown(heap: Expiry[], from: number): void {
  let i = from;
  for (;;) {
    const l = 2 * i + 1;
    const r = l + 1;
    let m = i;
    if (l < heap.length && at(heap, l) < at(heap, m)) m = l;
    if (r < heap.length && at(heap, r) < at(heap, m)) m = r;
    if (m === i) return;
    swap(heap, i, m);
    i = m;
  }
}
