package io.fabricpulse.collectors.sim;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;

/**
 * The kernel ring buffer of one simulated node, in the raw {@code /dev/kmsg} record format: {@code
 * "<level>,<seq>,<usec since boot>,<flags>;<message>"} (Documentation/ABI/testing/dev-kmsg), level
 * = syslog priority with the kernel facility 0. The sequence number restarts with each boot.
 */
final class SimulatedKernelLog {
  /** KERN_WARNING: the level NVRM Xid reports show up at in journal captures (our reading). */
  static final int WARNING = 4;

  static final int INFO = 6;

  final LineLog<String> lines;
  private Instant bootTime;
  private long seq;

  SimulatedKernelLog(Object lock, Instant bootTime, long firstSeq) {
    this.lines = new LineLog<>(lock);
    this.bootTime = bootTime;
    this.seq = firstSeq;
  }

  Instant bootTime() {
    return bootTime;
  }

  /** A new boot at {@code at}: the sequence restarts at 0 and the driver loads a few s later. */
  void reboot(Instant at) {
    bootTime = at;
    seq = 0;
    log(
        INFO,
        at,
        "NVRM: loading NVIDIA UNIX x86_64 Kernel Module  535.183.01"
            + "  Sun May 12 19:39:15 UTC 2024");
  }

  /** Appends one record logged at {@code at}. */
  void log(int level, Instant at, String message) {
    long micros = Duration.between(bootTime, at).truncatedTo(ChronoUnit.MICROS).toNanos() / 1000;
    lines.append(level + "," + seq++ + "," + micros + ",-;" + message);
  }
}
