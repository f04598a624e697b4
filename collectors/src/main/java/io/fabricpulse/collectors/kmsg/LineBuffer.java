package io.fabricpulse.collectors.kmsg;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * The lines a reader thread has read and {@link KernelLogSource#poll} has not taken yet, bounded:
 * past the bound the oldest line is dropped and counted, so a kernel log flood cannot exhaust the
 * collector's memory.
 */
final class LineBuffer {
  private final int capacity;
  private final ArrayDeque<String> lines = new ArrayDeque<>();
  private long dropped;

  LineBuffer(int capacity) {
    this.capacity = capacity;
  }

  synchronized void add(String line) {
    if (lines.size() >= capacity) {
      lines.pollFirst();
      dropped++;
    }
    lines.addLast(line);
    notifyAll();
  }

  /**
   * Waits until at least {@code count} lines are buffered or {@code timeout} passed; true if so.
   */
  synchronized boolean awaitSize(int count, java.time.Duration timeout)
      throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (lines.size() < count) {
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        return false;
      }
      java.util.concurrent.TimeUnit.NANOSECONDS.timedWait(this, left);
    }
    return true;
  }

  synchronized List<String> drain() {
    List<String> out = new ArrayList<>(lines);
    lines.clear();
    return out;
  }

  synchronized long dropped() {
    return dropped;
  }
}
