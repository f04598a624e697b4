package io.fabricpulse.streams.alerts;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabricpulse.avro.Alert;
import io.fabricpulse.avro.AlertState;
import io.fabricpulse.avro.Severity;
import io.fabricpulse.streams.rules.Detector;
import io.fabricpulse.streams.rules.Rule;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.processor.api.MockProcessorContext;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A port's samples reach its detector from several sources (sysfs, ethtool, hw congestion counters)
 * that the rate stage processes in slightly different orders; the lifecycle must not depend on that
 * order.
 */
class AlertTrackerOrderTest {
  private static final long S = 1000;
  private final AlertSubject port = AlertSubject.node("c1", "gpu012");
  private AlertTracker tracker;

  @BeforeEach
  void tracker() {
    KeyValueStore<String, TrackerState> store =
        Stores.keyValueStoreBuilder(
                Stores.inMemoryKeyValueStore("tracker"), Serdes.String(), new TrackerStateSerde())
            .withLoggingDisabled()
            .build();
    MockProcessorContext<Object, Object> context = new MockProcessorContext<>();
    store.init(context.getStateStoreContext(), store);
    tracker =
        new AlertTracker(
            Rule.withDefaults("drops", Detector.LOSSLESS_DROP, Severity.CRITICAL),
            FiringPolicy.IMMEDIATE,
            store);
  }

  private Optional<Alert> holds(long t) {
    return tracker.observe(
        Observation.holds(
            port,
            t,
            5,
            1,
            "packets",
            Message.of("lossless_drop.firing", "gpu012 ens9f0np0", 5, "rx_prio3_buf_discard +5"),
            Map.of(),
            Lineage.NONE));
  }

  private Optional<Alert> clean(long t) {
    return tracker.observe(Observation.clean(port, t, Lineage.NONE));
  }

  @Test
  void aCleanSampleFromBeforeTheDropsArrivingLateDoesNotResolveOrStartTheCleanPeriod() {
    Alert firing = holds(100 * S).orElseThrow();
    assertEquals(AlertState.FIRING, firing.getState());
    // Another source's sample from 40 s earlier, processed late: it must not count as clean.
    assertTrue(clean(60 * S).isEmpty());
    assertTrue(clean(159 * S).isEmpty(), "clean since 159 s at the earliest, not since 60 s");
    Alert resolved = clean(219 * S).orElseThrow();
    assertEquals(AlertState.RESOLVED, resolved.getState());
    assertEquals(219 * S, resolved.getResolvedAt().toEpochMilli(), "first clean 159 s + 60 s");
    assertTrue(resolved.getResolvedAt().isAfter(resolved.getStartedAt()));
  }

  @Test
  void aLateHoldingSampleFromBeforeTheCleanPeriodDoesNotRestartIt() {
    assertTrue(holds(100 * S).isPresent(), "fires at 100 s");
    assertTrue(clean(110 * S).isEmpty());
    assertTrue(holds(105 * S).isEmpty(), "late, from before the clean period");
    Alert resolved = clean(170 * S).orElseThrow();
    assertEquals(170 * S, resolved.getResolvedAt().toEpochMilli(), "clean since 110 s + 60 s");
  }

  @Test
  void aHoldingSampleInsideTheCleanPeriodRestartsIt() {
    assertTrue(holds(100 * S).isPresent(), "fires at 100 s");
    assertTrue(clean(110 * S).isEmpty());
    assertTrue(holds(120 * S).isEmpty());
    assertTrue(clean(175 * S).isEmpty(), "clean again only since 175 s");
    assertEquals(235 * S, clean(235 * S).orElseThrow().getResolvedAt().toEpochMilli());
  }

  @Test
  void aHoldingSampleFromBeforeTheResolutionArrivingAfterItDoesNotFireAgain() {
    assertTrue(holds(100 * S).isPresent(), "fires at 100 s");
    assertTrue(clean(110 * S).isEmpty());
    assertEquals(170 * S, clean(170 * S).orElseThrow().getResolvedAt().toEpochMilli());
    assertTrue(holds(100 * S).isEmpty(), "the firing sample again, after the resolution");
    assertTrue(holds(169 * S).isEmpty(), "one from inside the clean period, delivered late");
    assertTrue(tracker.punctuate(170 * S + AlertTracker.RESOLVED_KEPT.toMillis()).isEmpty());
    assertTrue(holds(169 * S).isEmpty(), "still remembered at resolved_at + RESOLVED_KEPT");
    assertEquals(AlertState.FIRING, holds(170 * S).orElseThrow().getState(), "a new incident");
  }

  @Test
  void aResolvedIncidentIsForgottenAfterItsKeepTime() {
    assertTrue(holds(100 * S).isPresent());
    assertTrue(clean(110 * S).isEmpty());
    assertTrue(clean(170 * S).isPresent());
    assertTrue(tracker.punctuate(170 * S + AlertTracker.RESOLVED_KEPT.toMillis() + 1).isEmpty());
    assertEquals(
        AlertState.FIRING,
        holds(150 * S).orElseThrow().getState(),
        "this far behind, a holding sample starts a new incident");
  }
}
