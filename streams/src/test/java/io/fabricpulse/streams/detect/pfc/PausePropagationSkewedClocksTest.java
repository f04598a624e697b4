package io.fabricpulse.streams.detect.pfc;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.fabricpulse.avro.Alert;
import io.fabricpulse.avro.AlertKind;
import io.fabricpulse.streams.testing.DetectorStories;
import io.fabricpulse.streams.testing.PfcRates;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;

/**
 * A pause storm spreading over nodes of one fabric.rates partition whose clocks disagree by
 * seconds: the victim on the slow clock must be folded into the one PAUSE_PROPAGATION like the
 * others, not paged on its own.
 */
class PausePropagationSkewedClocksTest extends DetectorStories {

  private static final String NIC = "ens1f0np0";

  /** gpu002's clock runs this far behind the others (chrony not yet synced after a reboot). */
  private static final int SKEW_S = 8;

  private PfcDriver driver(TestInfo info) {
    return new PfcDriver(defaults, stateDir, "pfc-skew-" + info.getDisplayName());
  }

  private static List<String> pages(List<Alert> alerts) {
    return alerts.stream().map(a -> a.getState() + " " + a.getKind() + " " + a.getNode()).toList();
  }

  /**
   * Origin gpu001 pauses its peers from second 101 to 160; gpu002 is paused from 102 on and fires
   * at 103 (its clock: 95); the third node, gpu003, is paused from 126 on and fires at 127, 24 s
   * after gpu002 on the true clock, inside the 30 s propagation window: that opens the incident.
   * Every node samples every second, all in one partition.
   */
  private static void spreadingOverSkewedClocks(PfcDriver d, int gpu002Skew) {
    for (int s = 100; s <= 260; s++) {
      boolean storm = s >= 101 && s < 160;
      d.pipe(
          PfcRates.at("gpu001", NIC, s)
              .txPausing(3, storm ? 0.95 : 0, storm ? 12_000 : 0)
              .rxPaused(3, 0, 0)
              .counter("rx_prio3_bytes", 0, "bytes"));
      boolean gpu002Paused = storm && s >= 102;
      d.pipe(
          PfcRates.at("gpu002", NIC, s - gpu002Skew)
              .rxPaused(3, gpu002Paused ? 0.9 : 0, gpu002Paused ? 11_000 : 0)
              .txPausing(3, 0, 0));
      boolean gpu003Paused = storm && s >= 126;
      d.pipe(
          PfcRates.at("gpu003", NIC, s)
              .rxPaused(3, gpu003Paused ? 0.9 : 0, gpu003Paused ? 11_000 : 0)
              .txPausing(3, 0, 0));
    }
  }

  @Test
  void inSyncTheVictimsAreFoldedIntoOneIncident(TestInfo info) {
    try (PfcDriver d = driver(info)) {
      spreadingOverSkewedClocks(d, 0);
      assertEquals(
          List.of(
              "FIRING PAUSE_STORM gpu001",
              "FIRING PAUSE_PROPAGATION null",
              "RESOLVED PAUSE_STORM gpu001",
              "RESOLVED PAUSE_PROPAGATION null"),
          pages(d.readAlerts()));
    }
  }

  @Test
  void aVictimWhoseClockRuns8sBehindIsFoldedToo(TestInfo info) {
    try (PfcDriver d = driver(info)) {
      spreadingOverSkewedClocks(d, SKEW_S);
      List<Alert> alerts = d.readAlerts();
      assertEquals(
          List.of(
              "FIRING PAUSE_STORM gpu001",
              "FIRING PAUSE_PROPAGATION null",
              "RESOLVED PAUSE_STORM gpu001",
              "RESOLVED PAUSE_PROPAGATION null"),
          pages(alerts),
          alerts.toString());
      Alert incident = alerts.get(1);
      assertEquals(AlertKind.PAUSE_PROPAGATION, incident.getKind());
      assertEquals(
          "gpu002 ens1f0np0 prio 3, gpu003 ens1f0np0 prio 3",
          incident.getEvidence().get("victims"));
    }
  }
}
