package io.fabricpulse.streams.detect.nccl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabricpulse.avro.Alert;
import io.fabricpulse.avro.AlertKind;
import io.fabricpulse.avro.AlertState;
import io.fabricpulse.avro.CounterRates;
import io.fabricpulse.avro.RateTag;
import io.fabricpulse.streams.testing.DetectorStories;
import java.time.Instant;
import java.util.List;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;

/**
 * Incident stories: an NCCL_ERROR carries the link alerts (LINK_FLAP, LINK_DOWN, ...) the link
 * detector raised on the same node around the failure line, decided in event time, so it does not
 * matter whether the port samples or the job log reached the pipeline first.
 */
class NcclErrorLinkAlertsTest extends DetectorStories {

  private static final String PEER = "10.0.0.18<33092>";

  private NcclDriver driver(TestInfo info, String run) {
    return NcclDriver.withLinkDetector(
        defaults, stateDir.resolve(run), "nccl-links-" + run + "-" + info.getDisplayName());
  }

  private static Instant at(int second) {
    return Instant.ofEpochMilli(NcclLines.T0 + second * 1000L);
  }

  /** gpu017's ports every 5 s from {@code from} to {@code to}; mlx5_0 flaps at 20, 30 and 40. */
  private static void gpu017Ports(NcclDriver d, int from, int to, boolean flapping) {
    for (int s = from; s <= to; s += 5) {
      boolean down = flapping && (s == 20 || s == 30 || s == 40);
      pipe(
          d, PortRates.port("gpu017", "mlx5_0", s, down ? "DOWN" : "ACTIVE", down ? 1 : 0, tag(s)));
      pipe(d, PortRates.port("gpu017", "mlx5_1", s, "ACTIVE", 0, tag(s)));
    }
  }

  private static RateTag tag(int second) {
    return second == 0 ? RateTag.first : RateTag.normal;
  }

  /** A port sample keyed by its node, as the rate stage writes fabric.rates. */
  private static void pipe(NcclDriver d, CounterRates port) {
    d.pipe(NcclLines.CLUSTER + "/" + port.getNode(), port);
  }

  /** Job 4720 on gpu017: IB transport at 10 s, then a completion error at 60 s. */
  private static void job4720(NcclDriver d, NcclLines gpu017) {
    d.pipe(gpu017, gpu017.netIbUsing(10, "mlx5_0", "mlx5_1"), gpu017.usingNetwork(10, "IB"));
    d.pipe(gpu017, gpu017.completionError(60, PEER));
  }

  private static List<TestRecord<String, Alert>> ncclErrors(NcclDriver d) {
    return d.readAlertRecords().stream()
        .filter(r -> r.value().getKind() == AlertKind.NCCL_ERROR)
        .toList();
  }

  @Test
  void portFlapsThenCompletionErrorCarriesTheLinkFlap(TestInfo info) {
    try (NcclDriver d = driver(info, "a")) {
      NcclLines gpu017 = NcclLines.of("gpu017", "4720");
      gpu017Ports(d, 0, 55, true);
      job4720(d, gpu017);
      gpu017Ports(d, 60, 200, true);

      List<TestRecord<String, Alert>> all = d.readAlertRecords();
      List<Alert> flaps =
          all.stream()
              .map(TestRecord::value)
              .filter(a -> a.getKind() == AlertKind.LINK_FLAP)
              .toList();
      assertEquals(AlertState.FIRING, flaps.get(0).getState(), all.toString());
      assertEquals(at(40), recordOf(all, flaps.get(0)).getRecordTime());
      List<TestRecord<String, Alert>> errors =
          all.stream().filter(r -> r.value().getKind() == AlertKind.NCCL_ERROR).toList();
      TestRecord<String, Alert> firing = errors.get(0);
      Alert error = firing.value();
      assertEquals(AlertState.FIRING, error.getState());
      assertEquals(at(60), error.getStartedAt());
      // it waited for gpu017's link alerts up to 60 s + 30 s of grace
      assertEquals(at(90), firing.getRecordTime());
      String flap = error.getEvidence().get("link_alert.LINK_FLAP.mlx5_0/1");
      assertTrue(flap != null && flap.startsWith("FIRING since " + at(40)), error.toString());
      assertTrue(flap.contains(flaps.get(0).getAlertId()), flap);
      assertEquals(
          "gpu017 job 4720: NCCL completion error from peer 10.0.0.18<33092> (status 12,"
              + " vendor_err 129); link alerts of the node: LINK_FLAP mlx5_0/1",
          error.getSummary());
      assertTrue(
          error.getEvidence().keySet().stream().noneMatch(k -> k.contains("mlx5_1")),
          "the healthy port is no evidence");
    }
  }

  @Test
  void completionErrorWithoutLinkTroubleCarriesNoLinkAlert(TestInfo info) {
    try (NcclDriver d = driver(info, "b")) {
      NcclLines gpu017 = NcclLines.of("gpu017", "4720");
      gpu017Ports(d, 0, 55, false);
      job4720(d, gpu017);
      gpu017Ports(d, 60, 200, false);

      List<TestRecord<String, Alert>> all = d.readAlertRecords();
      assertTrue(
          all.stream().allMatch(r -> r.value().getKind() == AlertKind.NCCL_ERROR), all.toString());
      Alert error = all.get(0).value();
      assertEquals(AlertState.FIRING, error.getState());
      assertEquals(at(90), all.get(0).getRecordTime());
      assertTrue(error.getEvidence().keySet().stream().noneMatch(k -> k.startsWith("link")));
      assertEquals(
          "gpu017 job 4720: NCCL completion error from peer 10.0.0.18<33092> (status 12,"
              + " vendor_err 129)",
          error.getSummary());
    }
  }

  @Test
  void portSamplesArrivingAfterTheLogLineStillAttachTheFlapTheyShowBeforeIt(TestInfo info) {
    List<TestRecord<String, Alert>> portsFirst;
    try (NcclDriver d = driver(info, "ports-first")) {
      NcclLines gpu017 = NcclLines.of("gpu017", "4720");
      gpu017Ports(d, 0, 55, true);
      job4720(d, gpu017);
      gpu017Ports(d, 60, 200, true);
      portsFirst = ncclErrors(d);
    }
    try (NcclDriver d = driver(info, "log-first")) {
      // the job log reached the pipeline first (the node's collector was behind): the line at 60 s
      // arrives before any port sample, the flap at 20-40 s after it
      NcclLines gpu017 = NcclLines.of("gpu017", "4720");
      job4720(d, gpu017);
      gpu017Ports(d, 0, 200, true);
      List<TestRecord<String, Alert>> logFirst = ncclErrors(d);
      assertEquals(2, logFirst.size(), logFirst.toString()); // FIRING and RESOLVED
      assertEquals(portsFirst, logFirst);
      assertTrue(
          logFirst.get(0).value().getEvidence().containsKey("link_alert.LINK_FLAP.mlx5_0/1"),
          logFirst.get(0).value().toString());
    }
  }

  @Test
  void aLinkFlapResolvedLongBeforeTheLineIsNotAttached(TestInfo info) {
    try (NcclDriver d = driver(info, "c")) {
      NcclLines gpu017 = NcclLines.of("gpu017", "4721");
      gpu017Ports(d, 0, 295, true); // the flap resolves at 105 s (60 s ACTIVE after 45 s)
      d.pipe(gpu017, gpu017.netIbUsing(250, "mlx5_0", "mlx5_1"), gpu017.usingNetwork(250, "IB"));
      d.pipe(gpu017, gpu017.completionError(300, PEER));
      gpu017Ports(d, 300, 400, true);
      List<TestRecord<String, Alert>> all = d.readAlertRecords();
      List<Alert> flaps =
          all.stream()
              .map(TestRecord::value)
              .filter(a -> a.getKind() == AlertKind.LINK_FLAP)
              .toList();
      assertEquals(2, flaps.size(), all.toString());
      Alert error =
          all.stream()
              .map(TestRecord::value)
              .filter(a -> a.getKind() == AlertKind.NCCL_ERROR)
              .findFirst()
              .orElseThrow();
      // resolved at 105 s, more than link_window (60 s) before the line at 300 s
      assertTrue(error.getEvidence().keySet().stream().noneMatch(k -> k.startsWith("link")));
    }
  }

  private static TestRecord<String, Alert> recordOf(List<TestRecord<String, Alert>> all, Alert a) {
    return all.stream().filter(r -> r.value().equals(a)).findFirst().orElseThrow();
  }
}
