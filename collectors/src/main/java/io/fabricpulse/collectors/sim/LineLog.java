package io.fabricpulse.collectors.sim;

import java.util.ArrayList;
import java.util.List;

/**
 * An append-only log of lines a simulated node writes (kernel log, OpenSM log, NCCL logs), read by
 * any number of independent readers, each with its own position. Memory is bounded: past {@link
 * #MAX_LINES} the oldest lines are dropped, and a reader that fell that far behind loses them, as a
 * slow /dev/kmsg reader does. Guarded by the simulator's lock.
 */
final class LineLog<T> {
  static final int MAX_LINES = 100_000;

  private final Object lock;
  private final List<T> lines = new ArrayList<>();
  private long firstIndex;

  LineLog(Object lock) {
    this.lock = lock;
  }

  void append(T line) {
    lines.add(line);
    if (lines.size() > 2 * MAX_LINES) {
      lines.subList(0, MAX_LINES).clear();
      firstIndex += MAX_LINES;
    }
  }

  /** A reader that starts at the oldest retained line. */
  Reader reader() {
    return new Reader();
  }

  /** One reader's position. */
  final class Reader {
    private long next;

    /** Lines appended since the previous call. */
    List<T> poll() {
      synchronized (lock) {
        long from = Math.max(next, firstIndex);
        List<T> out = new ArrayList<>(lines.subList((int) (from - firstIndex), lines.size()));
        next = firstIndex + lines.size();
        return out;
      }
    }
  }
}
