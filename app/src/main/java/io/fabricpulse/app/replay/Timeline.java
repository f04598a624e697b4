package io.fabricpulse.app.replay;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabricpulse.app.output.AlertText;
import io.fabricpulse.avro.Alert;
import io.fabricpulse.avro.NodeRates;
import io.fabricpulse.schemas.json.JsonRecords;
import java.io.PrintWriter;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * The incident timeline of a replay: every alert state change detected in the range, in order, with
 * its evidence and the key rates of its port around it ({@link PortRatesAround}), then the
 * comparison with the live alerts when asked. Text for a terminal, markdown for a ticket, JSON
 * lines for tools. Nothing in it depends on the wall clock or the machine: the same replay prints
 * the same bytes.
 */
public final class Timeline {
  public enum Format {
    TEXT,
    JSON,
    MARKDOWN
  }

  /** What the header says about the run. */
  public record Header(
      Instant from,
      Instant to,
      Instant warmUpFrom,
      String nodes,
      String rulesName,
      String rulesHash,
      long records) {}

  private static final ObjectMapper JSON = new ObjectMapper();

  private final Header header;
  private final List<ReplayedAlert> alerts;
  private final Map<String, List<NodeRates>> rates;
  private final LiveComparison.Result comparison;

  /**
   * @param alerts the alerts detected in the range, in order
   * @param comparison null without --compare-live
   */
  public Timeline(
      Header header,
      List<ReplayedAlert> alerts,
      Map<String, List<NodeRates>> rates,
      LiveComparison.Result comparison) {
    this.header = header;
    this.alerts = alerts;
    this.rates = rates;
    this.comparison = comparison;
  }

  public void print(Format format, PrintWriter out) {
    switch (format) {
      case TEXT -> text(out);
      case MARKDOWN -> markdown(out);
      case JSON -> json(out);
    }
    out.flush();
  }

  private void text(PrintWriter out) {
    out.printf(
        "replay %s .. %s  nodes %s  rules %s (%s)  warm-up from %s  %d records%n",
        header.from(),
        header.to(),
        header.nodes(),
        header.rulesHash(),
        header.rulesName(),
        header.warmUpFrom(),
        header.records());
    out.printf("%d alert state change(s) in the range%n", alerts.size());
    for (ReplayedAlert r : alerts) {
      Alert a = r.alert();
      out.printf(
          "%n%s  %-8s %-8s %-22s %s%n",
          r.detectedAt(), a.getState(), a.getSeverity(), a.getKind(), AlertText.subject(a));
      out.printf(
          "    %s%n    started %s, detected after %s, rule %s, alert_id %s%n",
          a.getSummary(), a.getStartedAt(), human(r.timeToDetect()), a.getRule(), a.getAlertId());
      new TreeMap<>(a.getEvidence()).forEach((k, v) -> out.printf("    evidence %s: %s%n", k, v));
      PortRatesAround.Table table = PortRatesAround.of(r, rates);
      if (table != null) {
        out.printf("    rates of %-32s", table.port());
        PortRatesAround.OFFSETS.forEach(o -> out.printf("%12s", offset(o)));
        out.println();
        for (PortRatesAround.Row row : table.rows()) {
          out.printf("      %-40s", row.counter() + " " + row.unit() + "/s");
          row.perSecond().forEach(v -> out.printf("%12s", number(v)));
          out.println();
        }
      }
    }
    if (comparison != null) {
      out.printf(
          "%ncompared with fabric.alerts: %d same, %d new, %d missed, %d shifted%n",
          comparison.same(),
          comparison.added().size(),
          comparison.missed().size(),
          comparison.shifted().size());
      comparison.added().forEach(r -> out.println("  NEW      " + line(r)));
      comparison.missed().forEach(r -> out.println("  MISSED   " + line(r)));
      for (LiveComparison.Shift s : comparison.shifted()) {
        out.printf(
            "  SHIFTED  %s: detected %s (live %s), time to detect %s%n",
            line(s.replayed()),
            signed(s.detectionShift()),
            s.live().detectedAt(),
            signed(s.timeToDetectChange()));
      }
    }
  }

  private void markdown(PrintWriter out) {
    out.printf("# Replay %s .. %s%n%n", header.from(), header.to());
    out.printf(
        "Nodes `%s`, rules `%s` (%s), warm-up from %s, %d records.%n%n",
        header.nodes(),
        header.rulesHash(),
        header.rulesName(),
        header.warmUpFrom(),
        header.records());
    out.println("| detected | state | severity | kind | subject | summary |");
    out.println("|---|---|---|---|---|---|");
    for (ReplayedAlert r : alerts) {
      Alert a = r.alert();
      out.printf(
          "| %s | %s | %s | %s | %s | %s |%n",
          r.detectedAt(),
          a.getState(),
          a.getSeverity(),
          a.getKind(),
          cell(AlertText.subject(a)),
          cell(a.getSummary()));
    }
    for (ReplayedAlert r : alerts) {
      Alert a = r.alert();
      out.printf("%n## %s %s %s%n%n", r.detectedAt(), a.getKind(), cell(AlertText.subject(a)));
      out.printf(
          "- %s, started %s, detected after %s (rule `%s`, alert_id `%s`)%n",
          a.getState(), a.getStartedAt(), human(r.timeToDetect()), a.getRule(), a.getAlertId());
      new TreeMap<>(a.getEvidence()).forEach((k, v) -> out.printf("- %s: %s%n", k, cell(v)));
      PortRatesAround.Table table = PortRatesAround.of(r, rates);
      if (table != null) {
        out.printf("%nRates of %s (per second):%n%n| counter |", table.port());
        PortRatesAround.OFFSETS.forEach(o -> out.printf(" %s |", offset(o)));
        out.printf("%n|---|");
        PortRatesAround.OFFSETS.forEach(o -> out.print("---:|"));
        out.println();
        for (PortRatesAround.Row row : table.rows()) {
          out.printf("| %s (%s) |", row.counter(), row.unit());
          row.perSecond().forEach(v -> out.printf(" %s |", number(v)));
          out.println();
        }
      }
    }
    if (comparison != null) {
      out.printf(
          "%n## Compared with fabric.alerts%n%n%d same, %d new, %d missed, %d shifted.%n%n",
          comparison.same(),
          comparison.added().size(),
          comparison.missed().size(),
          comparison.shifted().size());
      comparison.added().forEach(r -> out.println("- NEW " + cell(line(r))));
      comparison.missed().forEach(r -> out.println("- MISSED " + cell(line(r))));
      comparison
          .shifted()
          .forEach(
              s ->
                  out.printf(
                      "- SHIFTED %s: detected %s, time to detect %s%n",
                      cell(line(s.replayed())),
                      signed(s.detectionShift()),
                      signed(s.timeToDetectChange())));
    }
  }

  private void json(PrintWriter out) {
    ObjectNode head = JSON.createObjectNode();
    head.put("type", "ReplayHeader");
    head.put("from", header.from().toString());
    head.put("to", header.to().toString());
    head.put("warm_up_from", header.warmUpFrom().toString());
    head.put("nodes", header.nodes());
    head.put("rules", header.rulesName());
    head.put("rules_hash", header.rulesHash());
    head.put("records", header.records());
    out.println(write(head));
    for (ReplayedAlert r : alerts) {
      ObjectNode line = JSON.createObjectNode();
      line.put("type", "ReplayedAlert");
      line.put("detected_at", r.detectedAt().toString());
      line.put("time_to_detect_ms", r.timeToDetect().toMillis());
      line.set("alert", alertJson(r.alert()));
      PortRatesAround.Table table = PortRatesAround.of(r, rates);
      if (table != null) {
        ObjectNode t = line.putObject("rates");
        t.put("port", table.port());
        ArrayNode offsets = t.putArray("offsets_s");
        PortRatesAround.OFFSETS.forEach(o -> offsets.add(o.toSeconds()));
        ObjectNode counters = t.putObject("per_second");
        for (PortRatesAround.Row row : table.rows()) {
          ArrayNode values = counters.putArray(row.counter());
          row.perSecond().forEach(v -> values.add(v == null ? null : JSON.valueToTree(v)));
        }
      }
      out.println(write(line));
    }
    if (comparison != null) {
      ObjectNode diff = JSON.createObjectNode();
      diff.put("type", "LiveComparison");
      diff.put("same", comparison.same());
      ArrayNode added = diff.putArray("new");
      comparison.added().forEach(r -> added.add(brief(r)));
      ArrayNode missed = diff.putArray("missed");
      comparison.missed().forEach(r -> missed.add(brief(r)));
      ArrayNode shifted = diff.putArray("shifted");
      for (LiveComparison.Shift s : comparison.shifted()) {
        ObjectNode o = brief(s.replayed());
        o.put("live_detected_at", s.live().detectedAt().toString());
        o.put("detection_shift_ms", s.detectionShift().toMillis());
        o.put("time_to_detect_change_ms", s.timeToDetectChange().toMillis());
        shifted.add(o);
      }
      out.println(write(diff));
    }
  }

  private static ObjectNode brief(ReplayedAlert r) {
    ObjectNode o = JSON.createObjectNode();
    o.put("detected_at", r.detectedAt().toString());
    o.put("kind", r.alert().getKind().toString());
    o.put("rule", r.alert().getRule());
    o.put("subject", AlertText.subject(r.alert()));
    o.put("started_at", r.alert().getStartedAt().toString());
    o.put("time_to_detect_ms", r.timeToDetect().toMillis());
    return o;
  }

  private static ObjectNode alertJson(Alert a) {
    try {
      return (ObjectNode) JSON.readTree(JsonRecords.toJson(a));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot re-read an alert's JSON", e);
    }
  }

  private static String write(ObjectNode node) {
    try {
      return JSON.writeValueAsString(node);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot write JSON", e);
    }
  }

  private static String line(ReplayedAlert r) {
    Alert a = r.alert();
    return String.format(
        Locale.ROOT,
        "%s %s %s %s (started %s, detected after %s)",
        r.detectedAt(),
        a.getKind(),
        AlertText.subject(a),
        a.getRule(),
        a.getStartedAt(),
        human(r.timeToDetect()));
  }

  private static String cell(String text) {
    return text.replace("|", "\\|").replace('\n', ' ');
  }

  private static String offset(Duration d) {
    return d.isZero() ? "0s" : (d.isNegative() ? "" : "+") + d.toSeconds() + "s";
  }

  private static String number(Double v) {
    if (v == null) {
      return "-";
    }
    double abs = Math.abs(v);
    if (abs >= 1e9) {
      return String.format(Locale.ROOT, "%.2fG", v / 1e9);
    }
    if (abs >= 1e6) {
      return String.format(Locale.ROOT, "%.2fM", v / 1e6);
    }
    if (abs >= 1e3) {
      return String.format(Locale.ROOT, "%.2fk", v / 1e3);
    }
    return String.format(Locale.ROOT, "%.3g", v);
  }

  static String human(Duration d) {
    long ms = d.toMillis();
    String sign = ms < 0 ? "-" : "";
    ms = Math.abs(ms);
    long s = ms / 1000;
    if (s >= 3600) {
      return String.format(Locale.ROOT, "%s%dh%02dm%02ds", sign, s / 3600, s / 60 % 60, s % 60);
    }
    if (s >= 60) {
      return String.format(Locale.ROOT, "%s%dm%02ds", sign, s / 60, s % 60);
    }
    return ms % 1000 == 0
        ? sign + s + "s"
        : String.format(Locale.ROOT, "%s%d.%03ds", sign, s, ms % 1000);
  }

  private static String signed(Duration d) {
    return (d.isNegative() ? "" : "+") + human(d);
  }
}
