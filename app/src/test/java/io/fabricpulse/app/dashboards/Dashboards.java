package io.fabricpulse.app.dashboards;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/** The Grafana dashboards of {@code dashboards/} and every InfluxQL query they hold. */
final class Dashboards {

  private static final ObjectMapper JSON = new ObjectMapper();

  /** One query of a dashboard: a panel target, an annotation or a template variable. */
  record Query(String dashboard, String where, String influxql, boolean variable) {
    @Override
    public String toString() {
      return dashboard + " / " + where + ": " + influxql;
    }
  }

  record Dashboard(Path file, JsonNode json) {
    String uid() {
      return json.path("uid").asText();
    }

    String title() {
      return json.path("title").asText();
    }

    List<Query> queries() {
      List<Query> queries = new ArrayList<>();
      for (JsonNode variable : json.path("templating").path("list")) {
        if (variable.path("type").asText().equals("query")) {
          JsonNode q = variable.path("query");
          String text = q.isTextual() ? q.asText() : q.path("query").asText();
          queries.add(new Query(uid(), "variable " + variable.path("name").asText(), text, true));
        }
      }
      for (JsonNode annotation : json.path("annotations").path("list")) {
        if (annotation.has("query")) {
          queries.add(
              new Query(
                  uid(),
                  "annotation " + annotation.path("name").asText(),
                  annotation.path("query").asText(),
                  false));
        }
      }
      for (JsonNode panel : panels()) {
        for (JsonNode target : panel.path("targets")) {
          queries.add(
              new Query(
                  uid(),
                  "panel '" + panel.path("title").asText() + "' " + target.path("refId").asText(),
                  target.path("query").asText(),
                  false));
        }
      }
      return queries;
    }

    /** Every panel, those inside rows included. */
    List<JsonNode> panels() {
      List<JsonNode> panels = new ArrayList<>();
      for (JsonNode panel : json.path("panels")) {
        if (panel.path("type").asText().equals("row")) {
          panel.path("panels").forEach(panels::add);
        } else {
          panels.add(panel);
        }
      }
      return panels;
    }
  }

  private Dashboards() {}

  static List<Dashboard> load(Path dir) throws IOException {
    List<Dashboard> dashboards = new ArrayList<>();
    try (Stream<Path> files = Files.list(dir)) {
      for (Path file : files.filter(f -> f.toString().endsWith(".json")).sorted().toList()) {
        dashboards.add(new Dashboard(file, JSON.readTree(file.toFile())));
      }
    }
    return dashboards;
  }
}
