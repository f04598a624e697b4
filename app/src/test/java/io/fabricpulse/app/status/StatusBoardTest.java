package io.fabricpulse.app.status;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabricpulse.avro.Alert;
import io.fabricpulse.avro.AlertKind;
import io.fabricpulse.avro.AlertState;
import io.fabricpulse.avro.Severity;
import io.fabricpulse.sinks.influx.SinkPoint;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

class StatusBoardTest {

  private static final long T = 1_740_798_000_000L;

  @Test
  void aStormOnPriorityThreeFillsOneCellOfTheNodesPauseRowAndResolvedAlertsLeave()
      throws Exception {
    StatusBoard board = new StatusBoard();
    board.rates(
        new SinkPoint(
            "fabric_pfc_rates",
            new TreeMap<>(Map.of("cluster", "demo", "node", "gpu007", "netdev", "ens9f0np0")),
            Map.of("pause_ratio_prio3", 0.92),
            T));
    board.rates(
        new SinkPoint(
            "fabric_port_rates",
            new TreeMap<>(
                Map.of("cluster", "demo", "node", "gpu008", "device", "mlx5_0", "port", "1")),
            Map.of("port_xmit_wait_per_s", 5.0e6),
            T));
    board.activeAlert("storm-1", alert("storm-1", AlertKind.PAUSE_STORM, "gpu007"));
    board.activeAlert("flap-1", alert("flap-1", AlertKind.LINK_FLAP, "gpu001"));
    board.alertChange(alert("flap-1", AlertKind.LINK_FLAP, "gpu001"));
    board.activeAlert("flap-1", null); // resolved: tombstone on fabric.alerts.active

    Map<String, Object> s = board.snapshot();
    String json = new ObjectMapper().writeValueAsString(s); // what the page fetches

    @SuppressWarnings("unchecked")
    List<Map<String, Object>> strip = (List<Map<String, Object>>) s.get("pauseStrip");
    assertEquals("gpu007 ens9f0np0", strip.get(0).get("row"));
    assertEquals(
        Arrays.asList(null, null, null, 0.92, null, null, null, null),
        strip.get(0).get("pauseRatio"));
    @SuppressWarnings("unchecked")
    List<Map<String, Object>> active = (List<Map<String, Object>>) s.get("activeAlerts");
    assertEquals(List.of("storm-1"), active.stream().map(a -> a.get("alertId")).toList());
    @SuppressWarnings("unchecked")
    List<Map<String, Object>> links = (List<Map<String, Object>>) s.get("linkEvents");
    assertEquals("LINK_FLAP", links.get(0).get("kind"));
    @SuppressWarnings("unchecked")
    List<Map<String, Object>> ports = (List<Map<String, Object>>) s.get("congestedPorts");
    assertEquals("gpu008", ports.get(0).get("node"));
    assertEquals(true, json.contains("\"pauseRatio\":[null,null,null,0.92"));
  }

  private static Alert alert(String id, AlertKind kind, String node) {
    return Alert.newBuilder()
        .setAlertId(id)
        .setRule(kind.name().toLowerCase())
        .setKind(kind)
        .setSeverity(Severity.CRITICAL)
        .setState(AlertState.FIRING)
        .setCluster("demo")
        .setNode(node)
        .setStartedAt(Instant.ofEpochMilli(T))
        .setSummary(kind + " on " + node)
        .build();
  }
}
