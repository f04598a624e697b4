package io.fabricpulse.app.status;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabricpulse.app.testing.FaultScenario;
import io.fabricpulse.avro.Alert;
import io.fabricpulse.avro.AlertState;
import io.fabricpulse.collectors.sim.FaultKind;
import io.fabricpulse.schemas.serde.AvroSerde;
import io.fabricpulse.schemas.serde.AvroSerdeConfig;
import io.fabricpulse.schemas.topics.FabricTopics;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.Deserializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The live status page in a real browser (Debian's headless Chromium): the seeded fault scenario's
 * alerts, rates and NCCL verdicts, in their wire format, go onto the page's board; Chromium loads
 * the page from 127.0.0.1, runs its script, and the rendered DOM must show every alert still active
 * at the end of the scenario, the storm node's pause row, the GPUDirect RDMA fallback job, and the
 * health of the parts behind the page, a failing one first. The screenshot is written to
 * app/target/status-page.png (the README's picture).
 */
class StatusPageChromiumIT {

  private static final long CHROMIUM_DEADLINE_S = 120;

  @TempDir Path dir;

  @Test
  void theActiveAlertsOfTheScenarioAppearOnThePage() throws Exception {
    FaultScenario scenario = FaultScenario.seeded();
    FabricTopics topics = FabricTopics.defaults();
    StatusBoard board = new StatusBoard();
    StatusRecords records =
        new StatusRecords(
            board, topics, Map.of(AvroSerdeConfig.SCHEMA_REGISTRY_URL, FaultScenario.REGISTRY));
    for (ProducerRecord<String, byte[]> r : scenario.records) {
      records.apply(r.topic(), r.key(), r.value());
    }
    assertEquals(0, records.skipped());

    // what must be active: FIRING in fabric.alerts without a RESOLVED of the same incident
    Deserializer<Alert> alerts =
        AvroSerde.forValues(Alert.class, FaultScenario.REGISTRY).deserializer();
    Map<String, Alert> stillFiring = new LinkedHashMap<>();
    for (ProducerRecord<String, byte[]> r : scenario.records) {
      if (r.topic().equals(topics.alerts().name())) {
        Alert a = alerts.deserialize(r.topic(), r.value());
        if (a.getState() == AlertState.FIRING) {
          stillFiring.put(a.getAlertId(), a);
        } else {
          stillFiring.remove(a.getAlertId());
        }
      }
    }
    assertTrue(!stillFiring.isEmpty(), "the scenario ends with alerts firing");
    board.addCheck(
        new HealthCheck("kafka", () -> HealthCheck.Result.ok("Kafka at 127.0.0.1:9092 answers")));
    String storeDown = "the time-series store does not answer: retrying";
    board.addCheck(new HealthCheck("sink", () -> HealthCheck.Result.failing(storeDown)));

    try (StatusPage page = StatusPage.start(board, 0)) {
      Path screenshot = Path.of("target", "status-page.png").toAbsolutePath();
      Files.deleteIfExists(screenshot);
      chromium(page.url(), "--screenshot=" + screenshot);
      String dom = chromium(page.url(), "--dump-dom");
      assertTrue(
          dom.contains("<div id=\"updated\">updated "), "the script fetched and rendered:\n" + dom);
      assertTrue(Files.size(screenshot) > 10_000, "screenshot written: " + screenshot);

      List<String> missing = new ArrayList<>();
      for (Alert a : stillFiring.values()) {
        if (!dom.contains(html(a.getSummary()))) {
          missing.add(a.getKind() + " " + a.getNode() + ": " + a.getSummary());
        }
      }
      assertTrue(
          missing.isEmpty(), "active alerts not on the page:\n" + String.join("\n", missing));
      String stormNode =
          scenario.faults.stream()
              .filter(f -> f.kind() == FaultKind.PFC_PAUSE_STORM)
              .findFirst()
              .orElseThrow()
              .node();
      assertTrue(dom.contains("<td>" + stormNode + " "), "pause strip row of " + stormNode);
      assertTrue(dom.contains("<td>job-gdr-fallback</td>"), "NCCL job row");
      // the failing part first, flagged; the healthy one after it
      int failing = dom.indexOf("<li class=\"bad\" data-check=\"sink\">FAILING sink: " + storeDown);
      int ok = dom.indexOf("<li class=\"good\" data-check=\"kafka\">ok kafka: Kafka at");
      assertTrue(failing >= 0 && ok > failing, "health lines on the page:\n" + dom);
    }
  }

  /** Runs headless Chromium on {@code url} with one output flag; its stdout. */
  private String chromium(String url, String output) throws Exception {
    Path profile = Files.createTempDirectory(dir, "chromium");
    Path log = dir.resolve("chromium-" + System.nanoTime() + ".log");
    Process p =
        new ProcessBuilder(
                "chromium",
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--no-first-run",
                "--user-data-dir=" + profile,
                "--window-size=1400,1100",
                // let the page's fetch and render finish before the DOM or picture is taken
                "--virtual-time-budget=10000",
                output,
                url)
            .redirectError(log.toFile())
            .start();
    byte[] out = p.getInputStream().readAllBytes();
    if (!p.waitFor(CHROMIUM_DEADLINE_S, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new AssertionError("chromium did not finish in " + CHROMIUM_DEADLINE_S + " s");
    }
    assertEquals(0, p.exitValue(), "chromium failed: " + Files.readString(log));
    return new String(out, StandardCharsets.UTF_8);
  }

  /** Text as Chromium's DOM dump serialises it. */
  private static String html(String text) {
    return text.replace("&", "&amp;")
        .replace("<", "&lt;")
        .replace(">", "&gt;")
        .replace("\u00a0", "&nbsp;");
  }
}
