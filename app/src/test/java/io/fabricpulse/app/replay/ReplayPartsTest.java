package io.fabricpulse.app.replay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabricpulse.app.embedded.RegistrySnapshot;
import io.fabricpulse.avro.Alert;
import io.fabricpulse.avro.AlertKind;
import io.fabricpulse.avro.AlertState;
import io.fabricpulse.avro.GpuEcc;
import io.fabricpulse.avro.NodeCounters;
import io.fabricpulse.avro.Severity;
import io.fabricpulse.schemas.registry.InMemorySchemaRegistry;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.apache.avro.Schema;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The small parts of export and replay: node globs, the kept registry, rules hash, the diff. */
class ReplayPartsTest {

  @Test
  void nodeGlobsMatchWholeNamesAndKeepClusterWideRecords() {
    NodeFilter f = new NodeFilter("gpu00[1-3]*");
    assertTrue(f.accepts("gpu001"));
    assertTrue(f.accepts("gpu003x"));
    assertFalse(f.accepts("gpu004"));
    assertFalse(f.accepts("xgpu001"));
    assertTrue(f.accepts(null), "a record without a node is kept");
    assertTrue(new NodeFilter("gpu0?7").accepts("gpu007"));
    assertFalse(new NodeFilter("gpu.07").accepts("gpu007"), "a dot is literal");
    assertThrows(IllegalArgumentException.class, () -> new NodeFilter("gpu[1"));
  }

  @Test
  void theKeptRegistryGivesTheSameIdsBackInANewScope(@TempDir Path dir) throws IOException {
    InMemorySchemaRegistry demo = InMemorySchemaRegistry.forScope("replay-parts-demo");
    Schema counters = NodeCounters.getClassSchema();
    Schema gpu = GpuEcc.getClassSchema();
    int countersId = demo.register("fabric.raw.port-counters-value", counters);
    int gpuId = demo.register("fabric.raw.gpu-value", gpu);
    assertEquals(countersId, demo.register("fabric.raw.pfc-value", counters));
    RegistrySnapshot.save(demo, dir);

    InMemorySchemaRegistry later = InMemorySchemaRegistry.forScope("replay-parts-later");
    assertEquals(2, RegistrySnapshot.restore(later, dir));
    assertEquals(counters, later.getById(countersId));
    assertEquals(gpu, later.getById(gpuId));
    assertEquals(countersId, later.register("fabric.raw.ecn-value", counters));

    InMemorySchemaRegistry other = InMemorySchemaRegistry.forScope("replay-parts-other");
    other.register("x-value", Alert.getClassSchema());
    IOException clash = assertThrows(IOException.class, () -> RegistrySnapshot.restore(other, dir));
    assertTrue(clash.getMessage().contains("schema id 1"), clash.getMessage());
  }

  @Test
  void theRulesHashChangesWithAnyRuleByte(@TempDir Path dir) throws IOException {
    Files.writeString(dir.resolve("pfc.yaml"), "rules: []\n");
    Files.writeString(dir.resolve("README.md"), "not a rule file\n");
    String before = RulesHash.of(dir);
    assertEquals(12, before.length());
    Files.writeString(dir.resolve("README.md"), "still not a rule file\n");
    assertEquals(before, RulesHash.of(dir), "only rule files count");
    Files.writeString(dir.resolve("pfc.yaml"), "rules: [] \n");
    assertFalse(before.equals(RulesHash.of(dir)));
  }

  @Test
  void compareLiveTellsNewMissedAndShiftedWithTheChangeInTimeToDetect() {
    Instant t = Instant.parse("2026-12-01T03:10:00Z");
    ReplayedAlert liveStorm =
        alert("pfc-pause-storm", AlertKind.PAUSE_STORM, "gpu007", t, t.plusSeconds(4));
    ReplayedAlert earlierStorm =
        alert("pfc-pause-storm", AlertKind.PAUSE_STORM, "gpu007", t, t.plusSeconds(2));
    ReplayedAlert flap = alert("link-flap", AlertKind.LINK_FLAP, "gpu001", t, t.plusSeconds(1));
    ReplayedAlert hot = alert("gpu-hot", AlertKind.GPU_HOT, "gpu003", t, t.plusSeconds(60));
    LiveComparison.Result diff =
        LiveComparison.compare(List.of(earlierStorm, hot), List.of(liveStorm, flap));
    assertEquals(List.of(hot), diff.added());
    assertEquals(List.of(flap), diff.missed());
    assertEquals(1, diff.shifted().size());
    assertEquals(-2, diff.shifted().get(0).timeToDetectChange().toSeconds());
    assertEquals(0, diff.same());
    assertTrue(LiveComparison.compare(List.of(flap), List.of(flap)).identical());
  }

  private static ReplayedAlert alert(
      String rule, AlertKind kind, String node, Instant started, Instant detected) {
    return new ReplayedAlert(
        Alert.newBuilder()
            .setAlertId(rule + node + started)
            .setRule(rule)
            .setKind(kind)
            .setSeverity(Severity.CRITICAL)
            .setState(AlertState.FIRING)
            .setCluster("demo")
            .setNode(node)
            .setStartedAt(started)
            .setSummary(kind + " on " + node)
            .setEvidence(Map.of())
            .setLabels(Map.of())
            .build(),
        detected);
  }
}
