package io.fabricpulse.streams.detect.gpu;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabricpulse.avro.Alert;
import io.fabricpulse.avro.AlertKind;
import io.fabricpulse.avro.AlertState;
import io.fabricpulse.avro.DeadLetter;
import io.fabricpulse.avro.GpuEcc;
import io.fabricpulse.avro.GpuXid;
import io.fabricpulse.avro.Severity;
import io.fabricpulse.avro.XidKind;
import io.fabricpulse.collectors.core.NodeIdentity;
import io.fabricpulse.collectors.core.SampleContext;
import io.fabricpulse.collectors.kmsg.KernelLogXidParser;
import io.fabricpulse.collectors.nvsmi.NvidiaSmiCsvParser;
import io.fabricpulse.collectors.nvsmi.NvidiaSmiQParser;
import io.fabricpulse.streams.alerts.DetectorFailures;
import io.fabricpulse.streams.alerts.TrackerState;
import io.fabricpulse.streams.alerts.TrackerStateSerde;
import io.fabricpulse.streams.rules.Detector;
import io.fabricpulse.streams.rules.Rule;
import io.fabricpulse.streams.rules.RuleSet;
import io.fabricpulse.streams.rules.Selectors;
import io.fabricpulse.streams.rules.Thresholds;
import io.fabricpulse.streams.testing.DetectorDriver;
import io.fabricpulse.streams.testing.DetectorStories;
import io.fabricpulse.streams.testing.Samples;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;

/** Incident stories for the GPU detectors, with the shipped alert-rules/ defaults. */
class GpuHealthDetectorTest extends DetectorStories {

  private static final Instant T0 = Instant.parse("2025-03-10T06:00:00Z");
  private static final String PCI3 = "00000000:9B:00.0";

  private DetectorDriver driver(TestInfo info) {
    return driver(info, stateDir, "gpu-" + info.getDisplayName());
  }

  private static DetectorDriver driver(TestInfo info, Path dir, String scope) {
    return new DetectorDriver("gpu-test", GpuHealthDetector::addTo, defaults, dir, scope, T0);
  }

  private static Instant at(int second) {
    return T0.plusSeconds(second);
  }

  /** A healthy nvidia-smi sample of GPU 3 on gpu017 (H100: ECC counts, no retired pages). */
  private static GpuEcc.Builder gpu3(int second) {
    return GpuEcc.newBuilder()
        .setCluster("c1")
        .setNode("gpu017")
        .setBootId("boot-1")
        .setSeq(second)
        .setTime(at(second))
        .setGpu(3)
        .setUuid("GPU-3")
        .setPciBusId(PCI3)
        .setName("NVIDIA H100 80GB HBM3")
        .setEccMode("Enabled")
        .setEccCorrectedVolatile(0L)
        .setEccUncorrectedVolatile(0L)
        .setEccCorrectedAggregate(0L)
        .setEccUncorrectedAggregate(0L)
        .setRemappedRowsCorrectable(0L)
        .setRemappedRowsUncorrectable(0L)
        .setRemappedRowsPending(false)
        .setRemappedRowsFailure(false)
        .setTemperatureGpu(55);
  }

  private static GpuXid xid(int second, String pci, Integer gpu, int code, String message) {
    String line = "NVRM: Xid (" + pci + "): " + code + ", " + message;
    return GpuXid.newBuilder()
        .setCluster("c1")
        .setNode("gpu017")
        .setBootId("boot-1")
        .setSeq(10_000 + second)
        .setTime(at(second))
        .setPciBusId(pci)
        .setGpu(gpu)
        .setXid(code)
        .setKind(XidKind.XID)
        .setMessage(message)
        .setRawLine(line)
        .build();
  }

  private static List<Alert> firing(List<Alert> alerts) {
    return alerts.stream().filter(a -> a.getState() == AlertState.FIRING).toList();
  }

  @Test
  void uncorrectableEccPlusOneOnGpu3OfGpu017WithXid48IsOneCriticalAlert(TestInfo info) {
    try (DetectorDriver d = driver(info)) {
      for (int s = 0; s <= 20; s += 10) {
        d.pipe(gpu3(s).build());
      }
      // the kernel reports first (address as the kernel prints it, GPU index unknown) ...
      d.pipe(xid(25, "PCI:0000:9b:00", null, 48, "pid=4242, name=python, Ch 00000010"));
      // ... then nvidia-smi shows the error, with the row remap it caused pending a reset
      for (int s = 30; s <= 90; s += 10) {
        d.pipe(
            gpu3(s)
                .setEccUncorrectedVolatile(1L)
                .setEccUncorrectedAggregate(1L)
                .setRemappedRowsUncorrectable(1L)
                .setRemappedRowsPending(true)
                .build());
      }
      // GPU reset at 95 s: volatile count restarts, nothing pending
      for (int s = 100; s <= 200; s += 10) {
        d.pipe(gpu3(s).setEccUncorrectedAggregate(1L).setRemappedRowsUncorrectable(1L).build());
      }
      List<Alert> alerts = d.readAlerts();
      assertEquals(2, alerts.size(), alerts.toString());
      Alert fired = alerts.get(0);
      assertEquals(AlertKind.GPU_ECC_UNCORRECTABLE, fired.getKind());
      assertEquals(Severity.CRITICAL, fired.getSeverity());
      assertEquals("gpu017", fired.getNode());
      assertEquals(3, fired.getGpu());
      assertNull(fired.getDevice());
      assertEquals(at(25), fired.getStartedAt());
      assertEquals("48", fired.getEvidence().get("xid"));
      assertEquals("ROBUST_CHANNEL_GPU_ECC_DBE", fired.getEvidence().get("xid_mnemonic"));
      assertEquals("3", fired.getEvidence().get("xid_gpu"));
      assertEquals(AlertState.RESOLVED, alerts.get(1).getState());
      assertEquals(fired.getAlertId(), alerts.get(1).getAlertId());
      assertEquals(at(160), alerts.get(1).getResolvedAt());
    }
  }

  @Test
  void counterIncreaseBeforeTheXidIsStillOneAlert(TestInfo info) {
    try (DetectorDriver d = driver(info)) {
      d.pipe(gpu3(0).build());
      d.pipe(gpu3(10).setEccUncorrectedVolatile(1L).setEccUncorrectedAggregate(1L).build());
      d.pipe(xid(12, "PCI:0000:9b:00", null, 48, "pid=4242, name=python, Ch 00000010"));
      d.pipe(gpu3(20).setEccUncorrectedVolatile(1L).setEccUncorrectedAggregate(1L).build());
      List<Alert> alerts = d.readAlerts();
      assertEquals(1, alerts.size(), alerts.toString());
      assertEquals(AlertKind.GPU_ECC_UNCORRECTABLE, alerts.get(0).getKind());
      assertEquals(at(10), alerts.get(0).getStartedAt());
      assertEquals("1", alerts.get(0).getEvidence().get("uncorrected_increase"));
      assertEquals(
          "gpu017 GPU 3: uncorrectable ECC errors rose by 1 (volatile 1, aggregate 1); reset the"
              + " GPU, RMA if it repeats",
          alerts.get(0).getSummary());
    }
  }

  @Test
  void theRealRemapPendingCaptureWithXid63IsOneResetRequired(TestInfo info) {
    String name = "nvsmi/mleng-a100-xid63-and-nvidia-smi-q-remap-pending.txt";
    String text = Samples.read(name);
    NodeIdentity node = new NodeIdentity("c1", "gpu017", "boot-1");
    GpuXid remap =
        new KernelLogXidParser(ZoneOffset.UTC, null)
            .parse(text, SampleContext.of(node, at(15)), name)
            .records()
            .get(0);
    List<GpuEcc> pending = new ArrayList<>();
    for (int s = 20; s <= 60; s += 10) {
      pending.add(
          new NvidiaSmiQParser().parse(text, SampleContext.of(node, at(s)), name).records().get(0));
    }
    assertEquals(63, remap.getXid());
    assertTrue(pending.get(0).getRemappedRowsPending());
    assertEquals("00000000:10:1C.0", pending.get(0).getPciBusId());
    try (DetectorDriver d = driver(info)) {
      // before the fault: the same GPU, healthy (learns PCI 10:1c = GPU 0)
      GpuEcc before =
          GpuEcc.newBuilder(pending.get(0)).setTime(at(0)).setRemappedRowsPending(false).build();
      d.pipe(before);
      d.pipe(remap);
      pending.forEach(d::pipe);
      List<Alert> alerts = d.readAlerts();
      assertEquals(1, alerts.size(), alerts.toString());
      Alert reset = alerts.get(0);
      assertEquals(AlertKind.GPU_RESET_REQUIRED, reset.getKind());
      assertEquals(Severity.WARNING, reset.getSeverity());
      assertEquals(0, reset.getGpu());
      assertEquals("63", reset.getEvidence().get("xid"));
      assertEquals("PCI:0000:10:1c", reset.getEvidence().get("xid_pci_bus_id"));
      assertEquals(at(15), reset.getStartedAt());
    }
  }

  /**
   * A broker outage: gpu017's agent buffered an Xid 48 and, after a delivery it could not confirm,
   * published it again. The copy arrives after the alert it raised has resolved.
   */
  @Test
  void aDuplicatedXid48DeliveredAfterTheAlertResolvedPagesNoSecondTime(TestInfo info) {
    try (DetectorDriver d = driver(info)) {
      GpuXid xid48 = xid(25, "PCI:0000:9b:00", null, 48, "pid=4242, name=python, Ch 00000010");
      for (int s = 0; s <= 20; s += 10) {
        d.pipe(gpu3(s).build());
      }
      d.pipe(xid48);
      for (int s = 30; s <= 200; s += 10) {
        d.pipe(gpu3(s).setEccUncorrectedVolatile(1L).setEccUncorrectedAggregate(1L).build());
      }
      List<Alert> paged = d.readAlerts();
      assertEquals(
          List.of(AlertState.FIRING, AlertState.RESOLVED),
          paged.stream().map(Alert::getState).toList(),
          paged.toString());
      d.pipe(xid48); // the copy, 3 minutes of stream time after the original
      for (int s = 210; s <= 400; s += 10) {
        d.pipe(gpu3(s).setEccUncorrectedVolatile(1L).setEccUncorrectedAggregate(1L).build());
      }
      assertEquals(List.of(), d.readAlerts(), "the copy of the Xid 48 pages no second time");
    }
  }

  /**
   * After a broker outage the samples of gpu017 reach the detector ahead of the kernel's Xid 48
   * (another topic): the uncorrectable count fires and resolves the alert before the Xid arrives;
   * then a stale copy of the sample from before the error is delivered again. Neither is news.
   */
  @Test
  void anXid48HeldBackBehindTheSamplesThatResolvedItsAlertPagesNoSecondTime(TestInfo info) {
    try (DetectorDriver d = driver(info)) {
      GpuEcc before = gpu3(20).build();
      d.pipe(gpu3(0).build());
      d.pipe(gpu3(10).build());
      d.pipe(before);
      for (int s = 30; s <= 200; s += 10) {
        d.pipe(gpu3(s).setEccUncorrectedVolatile(1L).setEccUncorrectedAggregate(1L).build());
      }
      List<Alert> paged = d.readAlerts();
      assertEquals(2, paged.size(), paged.toString());
      assertEquals(at(30), paged.get(0).getStartedAt());
      assertEquals(AlertState.RESOLVED, paged.get(1).getState());
      d.pipe(xid(25, "PCI:0000:9b:00", null, 48, "pid=4242, name=python, Ch 00000010"));
      d.pipe(before);
      for (int s = 210; s <= 400; s += 10) {
        d.pipe(gpu3(s).setEccUncorrectedVolatile(1L).setEccUncorrectedAggregate(1L).build());
      }
      assertEquals(List.of(), d.readAlerts(), "the late Xid and the stale sample page nothing");
    }
  }

  /** The same GPU's second uncorrectable error, after the first incident resolved, is a page. */
  @Test
  void aNewXid48AfterTheAlertResolvedIsANewAlert(TestInfo info) {
    try (DetectorDriver d = driver(info)) {
      d.pipe(gpu3(0).build());
      d.pipe(xid(5, "PCI:0000:9b:00", null, 48, "pid=4242, name=python, Ch 00000010"));
      for (int s = 10; s <= 200; s += 10) {
        d.pipe(gpu3(s).setEccUncorrectedVolatile(1L).setEccUncorrectedAggregate(1L).build());
      }
      d.pipe(xid(205, "PCI:0000:9b:00", null, 48, "pid=4243, name=python, Ch 00000010"));
      for (int s = 210; s <= 400; s += 10) {
        d.pipe(gpu3(s).setEccUncorrectedVolatile(2L).setEccUncorrectedAggregate(2L).build());
      }
      List<Alert> fired = firing(d.readAlerts());
      assertEquals(
          List.of(at(5), at(205)), fired.stream().map(Alert::getStartedAt).toList(), "two pages");
    }
  }

  @Test
  void correctedEccGrowingTwoPerMinuteIsGpuEccAging(TestInfo info) {
    try (DetectorDriver d = driver(info)) {
      for (int m = 0; m <= 20; m++) {
        long corrected = 500 + 2L * m;
        d.pipe(
            gpu3(m * 60)
                .setEccCorrectedVolatile(corrected)
                .setEccCorrectedAggregate(corrected)
                .build());
      }
      List<Alert> alerts = d.readAlerts();
      assertEquals(1, alerts.size(), alerts.toString());
      Alert aging = alerts.get(0);
      assertEquals(AlertKind.GPU_ECC_AGING, aging.getKind());
      assertEquals(Severity.WARNING, aging.getSeverity());
      assertEquals(at(6 * 60), aging.getStartedAt());
      assertEquals(12.0, aging.getValue());
      assertEquals(10.0, aging.getThreshold());
      assertEquals("aggregate", aging.getEvidence().get("corrected_basis"));
    }
  }

  @Test
  void ninetyTwoDegreesForTwoMinutesIsGpuHotButThirtySecondsIsNot(TestInfo info) {
    try (DetectorDriver d = driver(info)) {
      for (int s = 0; s <= 30; s += 10) {
        d.pipe(gpu3(s).setTemperatureGpu(92).build());
      }
      d.pipe(gpu3(40).setTemperatureGpu(80).build());
      assertEquals(List.of(), d.readAlerts());
      for (int s = 100; s <= 220; s += 10) {
        d.pipe(gpu3(s).setTemperatureGpu(92).build());
      }
      for (int s = 230; s <= 300; s += 10) {
        d.pipe(gpu3(s).setTemperatureGpu(70).build());
      }
      List<Alert> alerts = d.readAlerts();
      assertEquals(2, alerts.size(), alerts.toString());
      assertEquals(AlertKind.GPU_HOT, alerts.get(0).getKind());
      assertEquals(at(100), alerts.get(0).getStartedAt());
      assertEquals(92.0, alerts.get(0).getValue());
      assertEquals(85.0, alerts.get(0).getThreshold());
      assertEquals("gpu017 GPU 3: temperature 92 C above 85 C for 1m", alerts.get(0).getSummary());
      assertEquals(AlertState.RESOLVED, alerts.get(1).getState());
      assertEquals(at(290), alerts.get(1).getResolvedAt());
    }
  }

  /**
   * A gpu_ecc rule built in code without the retired_pages threshold its check reads throws on
   * every sample that carries ECC fields. Each such sample leaves a dead letter naming the
   * detector, the rule, the input's coordinates and the exception, the failure metric counts it,
   * and the other rules still judge the same samples: GPU 3 at 92 C still raises GPU_HOT.
   */
  @Test
  void aRuleThatThrowsLeavesADeadLetterPerSampleAndGpuHotStillFires(TestInfo info) {
    Rule broken =
        new Rule(
            "gpu-ecc-from-code",
            Detector.GPU_ECC,
            Severity.CRITICAL,
            new Thresholds(Map.of("uncorrectable_increase", 1L)),
            Duration.ofSeconds(60),
            Selectors.ANY,
            Map.of(),
            true,
            "",
            "",
            "<code>");
    List<Rule> rules = new ArrayList<>(defaults.all());
    rules.add(broken);
    try (DetectorDriver d =
        new DetectorDriver(
            "gpu-test", GpuHealthDetector::addTo, RuleSet.of(rules), stateDir, "gpu-dlq", T0)) {
      List<GpuEcc> samples = new ArrayList<>();
      for (int s = 100; s <= 220; s += 10) {
        samples.add(gpu3(s).setTemperatureGpu(92).build());
      }
      for (int s = 230; s <= 300; s += 10) {
        samples.add(gpu3(s).setTemperatureGpu(70).build());
      }
      samples.forEach(d::pipe);

      List<Alert> alerts = d.readAlerts();
      assertEquals(2, alerts.size(), alerts.toString());
      assertEquals(AlertKind.GPU_HOT, alerts.get(0).getKind());
      assertEquals(at(100), alerts.get(0).getStartedAt());
      assertEquals(AlertState.RESOLVED, alerts.get(1).getState());
      assertEquals(at(290), alerts.get(1).getResolvedAt());

      List<DeadLetter> letters = d.readDeadLetters();
      assertEquals(samples.size(), letters.size(), letters.toString());
      for (int i = 0; i < letters.size(); i++) {
        assertEquals((long) i, letters.get(i).getOffset());
        assertEquals(samples.get(i).getTime(), letters.get(i).getTime());
      }
      DeadLetter first = letters.get(0);
      assertEquals("gpu", first.getDetector());
      assertEquals("gpu-ecc-from-code", first.getRule());
      assertEquals(GpuHealthDetector.PROCESSOR, first.getProcessor());
      assertEquals("fabric.raw.gpu", first.getTopic());
      assertEquals(0, first.getPartition());
      assertEquals(
          "java.lang.IllegalArgumentException: no threshold retired_pages", first.getException());
      assertEquals(
          "detector gpu rule gpu-ecc-from-code failed:"
              + " java.lang.IllegalArgumentException: no threshold retired_pages",
          first.getReason());
      assertEquals("c1/gpu017", StandardCharsets.UTF_8.decode(first.getKey()).toString());
      byte[] value = new byte[first.getValue().remaining()];
      first.getValue().get(value);
      assertEquals(
          samples.get(0),
          d.serdes.value(GpuEcc.class).deserializer().deserialize("fabric.raw.gpu", value),
          "the dead letter carries the input record");

      assertEquals((double) samples.size(), DetectorFailures.total(d.driver.metrics(), "gpu"));
      assertEquals(0.0, DetectorFailures.total(d.driver.metrics(), "link"));
    }
  }

  /**
   * A failure inside the stream-time punctuation goes the way of a failure on a record. GPU 3 of
   * gpu017 falls off the bus (Xid 79 at 06:00:10); its incident count in gpu-xid-counts is then
   * unreadable (a count without its time, as a store written by another build could hold). When the
   * quiet repeat window ends at 06:05:10, the punctuation that resolves the incident throws on it.
   * That leaves one dead letter naming the detector and the punctuation time, the failure metric
   * counts it, the stream thread lives on, and GPU 3 running hot from 06:06:40 still raises
   * GPU_HOT. Without the guard the exception ended the stream thread.
   */
  @Test
  void aPunctuationThatThrowsLeavesADeadLetterAndGpuHotStillFires(TestInfo info) {
    try (DetectorDriver d = driver(info)) {
      d.pipe(gpu3(0).build());
      d.pipe(xid(10, "PCI:0000:9b:00", null, 79, "GPU has fallen off the bus."));
      var counts = d.driver.<String, String>getKeyValueStore(GpuHealthDetector.XID_COUNT_STORE);
      List<String> keys = new ArrayList<>();
      counts.all().forEachRemaining(e -> keys.add(e.key));
      assertEquals(1, keys.size(), keys.toString());
      counts.put(keys.get(0), "1");
      for (int s = 20; s <= 500; s += 10) {
        d.pipe(gpu3(s).setTemperatureGpu(s >= 400 ? 92 : 55).build());
      }

      List<Alert> alerts = d.readAlerts();
      assertEquals(
          List.of(AlertKind.GPU_XID, AlertKind.GPU_HOT),
          alerts.stream().map(Alert::getKind).toList(),
          alerts.toString());
      assertEquals(at(400), alerts.get(1).getStartedAt());
      List<DeadLetter> letters = d.readDeadLetters();
      assertEquals(1, letters.size(), letters.toString());
      DeadLetter letter = letters.get(0);
      assertEquals("gpu", letter.getDetector());
      assertEquals(GpuHealthDetector.PROCESSOR, letter.getProcessor());
      assertEquals(at(310), letter.getTime());
      assertNull(letter.getTopic());
      assertNull(letter.getRule());
      assertNull(letter.getValue());
      assertTrue(
          letter
              .getReason()
              .startsWith(
                  "detector gpu failed in its stream-time punctuation at 2025-03-10T06:05:10Z:"
                      + " java.lang.ArrayIndexOutOfBoundsException"),
          letter.getReason());
      assertEquals(1.0, DetectorFailures.total(d.driver.metrics(), "gpu"));
    }
  }

  @Test
  void theShippedRulesLeaveNoDeadLetter(TestInfo info) {
    try (DetectorDriver d = driver(info)) {
      for (int s = 0; s <= 300; s += 10) {
        d.pipe(gpu3(s).setTemperatureGpu(s >= 100 && s <= 220 ? 92 : 55).build());
      }
      assertEquals(2, d.readAlerts().size());
      assertEquals(List.of(), d.readDeadLetters());
      assertEquals(0.0, DetectorFailures.total(d.driver.metrics(), "gpu"));
    }
  }

  @Test
  void notAvailableFieldsNeverFire(TestInfo info) {
    String csv = "nvsmi/nvgpuexp-h100-query-gpu-ecc-csv.txt";
    String q = "nvsmi/gpud-nvidia-smi-q-8xh100-535.161.08.txt";
    NodeIdentity node = new NodeIdentity("c1", "h100-01", "boot-1");
    try (DetectorDriver d = driver(info)) {
      for (int s = 0; s <= 300; s += 30) {
        SampleContext context = SampleContext.of(node, at(s));
        List<GpuEcc> csvRecords =
            new NvidiaSmiCsvParser().parseWithHeader(Samples.read(csv), context, csv).records();
        assertEquals(2, csvRecords.size());
        d.pipe(csvRecords.get(s / 30 % 2)); // idle and load captures alternate
        new NvidiaSmiQParser().parse(Samples.read(q), context, q).records().forEach(d::pipe);
        // a GPU whose driver reports nothing at all: every field [N/A]
        d.pipe(
            GpuEcc.newBuilder()
                .setCluster("c1")
                .setNode("h100-02")
                .setBootId("boot-1")
                .setSeq(s)
                .setTime(at(s))
                .setGpu(0)
                .build());
      }
      assertEquals(List.of(), d.readAlerts());
    }
  }

  @Test
  void xid79RepeatedFiveTimesIsOneAlertWithCountFive(TestInfo info) {
    try (DetectorDriver d = driver(info)) {
      d.pipe(gpu3(0).build());
      for (int i = 0; i < 5; i++) {
        d.pipe(xid(10 + i * 30, "PCI:0000:9b:00", null, 79, "GPU has fallen off the bus."));
      }
      // quiet for the 5-minute repeat window
      for (int s = 200; s <= 500; s += 10) {
        d.pipe(gpu3(s).build());
      }
      List<Alert> alerts = d.readAlerts();
      assertEquals(2, alerts.size(), alerts.toString());
      Alert fired = alerts.get(0);
      assertEquals(AlertKind.GPU_XID, fired.getKind());
      assertEquals(Severity.CRITICAL, fired.getSeverity());
      assertEquals("xid79", fired.getDevice());
      assertEquals(3, fired.getGpu());
      assertEquals("1", fired.getEvidence().get("count"));
      Alert resolved = alerts.get(1);
      assertEquals(AlertState.RESOLVED, resolved.getState());
      assertEquals(fired.getAlertId(), resolved.getAlertId());
      assertEquals("5", resolved.getEvidence().get("count"));
      assertEquals(at(130).toString(), resolved.getEvidence().get("last_seen"));
      assertEquals(at(130 + 300), resolved.getResolvedAt());
    }
  }

  @Test
  void theRealAkashXidsAreOneIncidentPerCodeWithCatalogSeverity(TestInfo info) {
    String name = "kmsg/akash-244-dmesg-xid43-31-94-contained.txt";
    NodeIdentity node = new NodeIdentity("c1", "node4", "boot-7");
    List<GpuXid> xids =
        new KernelLogXidParser(ZoneOffset.UTC, null)
            .parse(
                Samples.read(name),
                SampleContext.of(node, Instant.parse("2024-08-10T00:00:00Z")),
                name)
            .records();
    assertEquals(List.of(43, 43, 31, 94), xids.stream().map(GpuXid::getXid).toList());
    try (DetectorDriver d = driver(info)) {
      xids.forEach(d::pipe);
      List<Alert> fired = firing(d.readAlerts());
      assertEquals(3, fired.size(), fired.toString());
      assertEquals("xid43@PCI:0000:00:05", fired.get(0).getDevice());
      assertEquals(Severity.INFO, fired.get(0).getSeverity());
      assertEquals("xid31@PCI:0000:00:07", fired.get(1).getDevice());
      assertEquals(Severity.WARNING, fired.get(1).getSeverity());
      assertEquals("xid94@PCI:0000:00:08", fired.get(2).getDevice());
      assertEquals(Severity.WARNING, fired.get(2).getSeverity());
      assertTrue(fired.stream().allMatch(a -> a.getKind() == AlertKind.GPU_XID));
      assertNull(fired.get(2).getGpu());
    }
  }

  @Test
  void aRestartDoesNotReFireAFiringAlert(TestInfo info) {
    List<KeyValue<String, TrackerState>> trackers = new ArrayList<>();
    List<KeyValue<String, GpuHistory>> history = new ArrayList<>();
    List<KeyValue<String, String>> counts = new ArrayList<>();
    Alert fired;
    try (DetectorDriver d1 = driver(info)) {
      d1.pipe(gpu3(0).build());
      d1.pipe(gpu3(10).setEccUncorrectedAggregate(2L).setEccUncorrectedVolatile(2L).build());
      d1.pipe(xid(12, "PCI:0000:9b:00", 3, 79, "GPU has fallen off the bus."));
      List<Alert> first = d1.readAlerts();
      assertEquals(2, first.size(), first.toString());
      fired = first.get(1);
      trackers.addAll(
          d1.changelog(GpuHealthDetector.TRACKER_STORE, new TrackerStateSerde().deserializer()));
      history.addAll(
          d1.changelog(GpuHealthDetector.HISTORY_STORE, new GpuHistorySerde().deserializer()));
      counts.addAll(
          d1.changelog(GpuHealthDetector.XID_COUNT_STORE, Serdes.String().deserializer()));
    }
    try (DetectorDriver d2 = driver(info)) {
      d2.restore(GpuHealthDetector.TRACKER_STORE, trackers);
      d2.restore(GpuHealthDetector.HISTORY_STORE, history);
      d2.restore(GpuHealthDetector.XID_COUNT_STORE, counts);
      d2.pipe(xid(20, "PCI:0000:9b:00", 3, 79, "GPU has fallen off the bus."));
      for (int s = 20; s <= 400; s += 10) {
        d2.pipe(gpu3(s).setEccUncorrectedAggregate(2L).setEccUncorrectedVolatile(2L).build());
      }
      List<Alert> after = d2.readAlerts();
      assertEquals(2, after.size(), after.toString());
      assertTrue(after.stream().allMatch(a -> a.getState() == AlertState.RESOLVED));
      Alert xidResolved =
          after.stream().filter(a -> a.getKind() == AlertKind.GPU_XID).findFirst().orElseThrow();
      assertEquals(fired.getAlertId(), xidResolved.getAlertId());
      assertEquals("2", xidResolved.getEvidence().get("count"));
    }
  }

  @Test
  void theSameInputTwiceGivesIdenticalAlerts(TestInfo info) {
    List<List<TestRecord<String, Alert>>> runs = new ArrayList<>();
    for (int run = 0; run < 2; run++) {
      try (DetectorDriver d = driver(info, stateDir.resolve("run" + run), "gpu-det-" + run)) {
        for (int s = 0; s <= 500; s += 10) {
          GpuEcc.Builder b = gpu3(s).setTemperatureGpu(s >= 100 && s < 200 ? 90 : 60);
          if (s >= 50) {
            b.setEccUncorrectedVolatile(1L).setEccUncorrectedAggregate(1L);
          }
          d.pipe(b.build());
          if (s == 120 || s == 130) {
            d.pipe(xid(s + 1, "PCI:0000:9b:00", 3, 74, "NVLink: fatal error"));
          }
        }
        runs.add(d.readAlertRecords());
      }
    }
    // ECC, HOT and Xid 74: each FIRING and RESOLVED
    assertEquals(6, runs.get(0).size(), runs.get(0).toString());
    assertEquals(runs.get(0), runs.get(1));
  }

  @Test
  void everyProcessorStoreAndInternalTopicHasAnExplicitName(TestInfo info) {
    try (DetectorDriver d = driver(info)) {
      assertNamed(
          d.topology,
          List.of(
              "source-fabric-raw-gpu",
              "source-fabric-raw-xid",
              "gpu-inputs-merge",
              GpuHealthDetector.PROCESSOR,
              GpuHealthDetector.HISTORY_STORE,
              GpuHealthDetector.PCI_STORE,
              GpuHealthDetector.XID_COUNT_STORE,
              GpuHealthDetector.TRACKER_STORE,
              "gpu-results-only",
              "gpu-results-cast",
              "gpu-to-alerts",
              "gpu-to-alerts-active",
              "gpu-dead-letters-only",
              "gpu-dead-letters-cast",
              "gpu-sink-dlq"));
    }
  }
}
