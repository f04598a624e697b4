package io.fabricpulse.streams.detect.link;

import io.fabricpulse.streams.testing.PortRates;
import java.util.function.LongPredicate;
import java.util.function.LongToIntFunction;

/**
 * One IB port sampled every {@code step} seconds, with counters kept the way the kernel keeps them:
 * link_downed + 1 when the link drops [K-sysfs], symbol_error growing at the scripted rate.
 */
final class PortStory {

  final String node;
  final String device;
  final long step;
  LongPredicate down = s -> false;
  LongPredicate halfSpeed = s -> false;
  LongToIntFunction symbolErrorsPerSecond = s -> 0;

  private long linkDowned;
  private long symbolErrors;
  private boolean up = true;
  private Long lastSecond;

  PortStory(String node, String device, long step) {
    this.node = node;
    this.device = device;
    this.step = step;
  }

  /** The sample at {@code second}; advances the counters over the interval since the last one. */
  PortRates sample(long second) {
    long downedBefore = linkDowned;
    long symbolsBefore = symbolErrors;
    if (lastSecond == null) {
      up = !down.test(second); // the state the port was found in, not a drop
    }
    long from = lastSecond == null ? second : lastSecond;
    for (long s = from + 1; s <= second; s++) {
      boolean isDown = down.test(s);
      if (isDown && up) {
        linkDowned++;
      }
      up = !isDown;
      symbolErrors += symbolErrorsPerSecond.applyAsInt(s);
    }
    PortRates r = PortRates.at(node, device, second);
    if (lastSecond != null) {
      r.interval((second - lastSecond) * 1000);
    }
    lastSecond = second;
    if (!up) {
      // a port that lost its link reports the lowest rate while training: never "degraded"
      r.down().rate(10, "1X");
    }
    if (halfSpeed.test(second)) {
      r.rate(200, "4X");
    }
    r.counter("link_downed", linkDowned, linkDowned - downedBefore);
    r.counter("symbol_error", symbolErrors, symbolErrors - symbolsBefore);
    r.counter("port_rcv_errors", 0, 0);
    r.counter("link_error_recovery", 0, 0);
    r.counter("port_xmit_discards", 0, 0);
    r.counter("excessive_buffer_overrun_errors", 0, 0);
    r.counter("local_link_integrity_errors", 0, 0);
    return r;
  }

  void play(LinkDriver d, long fromSecond, long toSecond) {
    for (long s = fromSecond; s <= toSecond; s += step) {
      d.pipe(sample(s));
    }
  }

  /** Down during [start, start + seconds). */
  static LongPredicate downFor(long start, long seconds) {
    return s -> s >= start && s < start + seconds;
  }
}
