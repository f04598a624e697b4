package io.fabricpulse.streams.order;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The low watermark over one node's sources, as the order stage keeps it. */
class NodeSourceClocksTest {

  private static final long T0 = 1_700_000_000_000L;

  private static long at(int second) {
    return T0 + second * 1000L;
  }

  @Test
  void theWatermarkIsTheEarliestOfTheSourcesLatestTimes() {
    NodeSourceClocks c =
        NodeSourceClocks.EMPTY
            .observe("PORT", at(10), 1000)
            .observe("PFC", at(7), 1000)
            .observe("ECN", at(8), 1000);
    assertEquals(at(7), c.lowWatermark());
    c = c.observe("PFC", at(9), 1000);
    assertEquals(at(8), c.lowWatermark());
  }

  @Test
  void aSourceSilentFor5MinutesNoLongerHoldsItsNodeBackAndRejoinsWithItsNextRecord() {
    NodeSourceClocks c =
        NodeSourceClocks.EMPTY.observe("PORT", at(0), 1000).observe("PFC", at(0), 1000);
    for (int s = 1; s < 300; s++) {
      c = c.observe("PORT", at(s), 1000);
    }
    assertEquals(at(0), c.lowWatermark(), "4m59s behind: still waited for");
    c = c.observe("PORT", at(300), 1000);
    assertEquals(at(300), c.lowWatermark(), "5 min behind: dropped");
    assertFalse(c.sources().containsKey("PFC"));
    c = c.releasedUpTo(c.lowWatermark()).observe("PFC", at(301), 1000);
    assertTrue(c.sources().containsKey("PFC"));
    assertEquals(at(300), c.lowWatermark(), "never below what was released");
  }

  @Test
  void aSlowSourceIsWaitedForThreeOfItsIntervals() {
    NodeSourceClocks c =
        NodeSourceClocks.EMPTY.observe("PORT", at(0), 1000).observe("PERFQUERY", at(0), 120_000);
    c = c.observe("PORT", at(359), 1000);
    assertEquals(at(0), c.lowWatermark(), "a 2 min source is waited for 6 min, not 5");
    c = c.observe("PORT", at(360), 1000);
    assertEquals(at(360), c.lowWatermark());
  }

  @Test
  void aRecordAtOrBelowTheReleasedWatermarkIsLate() {
    NodeSourceClocks c = NodeSourceClocks.EMPTY.observe("PORT", at(5), 1000);
    assertFalse(c.released(at(5)));
    c = c.releasedUpTo(at(5));
    assertTrue(c.released(at(5)));
    assertFalse(c.released(at(6)));
  }

  @Test
  void theStoreFormRoundTripsAndEqualClocksHaveEqualBytes() {
    NodeSourceClocks c =
        NodeSourceClocks.EMPTY
            .observe("PFC", at(3), 1000)
            .observe("PORT", at(4), 0)
            .releasedUpTo(at(3));
    byte[] bytes = NodeSourceClocksSerde.write(c);
    assertEquals(c, NodeSourceClocksSerde.read(bytes));
    NodeSourceClocks same =
        NodeSourceClocks.EMPTY
            .observe("PORT", at(4), 0)
            .observe("PFC", at(3), 1000)
            .releasedUpTo(at(3));
    assertArrayEquals(bytes, NodeSourceClocksSerde.write(same));
  }
}
