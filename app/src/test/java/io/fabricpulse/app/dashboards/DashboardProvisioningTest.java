package io.fabricpulse.app.dashboards;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;

/**
 * The provisioning of {@code dashboards/}: one InfluxQL data source, seven dashboards with distinct
 * uids, every panel, target, annotation and variable on that data source, and every template
 * variable a query uses defined by its dashboard.
 */
class DashboardProvisioningTest {

  private static final Pattern VARIABLE = Pattern.compile("\\$(\\w+)");
  private static final Set<String> GRAFANA_VARIABLES = Set.of("timeFilter", "__interval");

  @Test
  void sevenDashboardsOnTheProvisionedInfluxQlDataSource() throws Exception {
    Path dir = DashboardQueriesIT.dashboardsDir();
    Map<String, Object> datasources =
        yaml(dir.resolve("provisioning/datasources/fabricpulse.yaml"));
    @SuppressWarnings("unchecked")
    Map<String, Object> source =
        ((List<Map<String, Object>>) datasources.get("datasources")).get(0);
    assertEquals("influxdb", source.get("type"));
    String uid = (String) source.get("uid");
    assertTrue(
        source.get("secureJsonData").toString().contains("$__file{"),
        "the token comes from a file: " + source);
    Map<String, Object> providers = yaml(dir.resolve("provisioning/dashboards/fabricpulse.yaml"));
    assertTrue(providers.toString().contains("/var/lib/grafana/dashboards/fabricpulse"));

    List<Dashboards.Dashboard> dashboards = Dashboards.load(dir);
    assertEquals(7, dashboards.size(), dashboards.toString());
    Set<String> uids = new HashSet<>();
    List<String> problems = new ArrayList<>();
    for (Dashboards.Dashboard d : dashboards) {
      assertTrue(uids.add(d.uid()), "duplicate uid " + d.uid());
      Set<String> defined = new HashSet<>();
      for (JsonNode v : d.json().path("templating").path("list")) {
        defined.add(v.path("name").asText());
        checkSource(d, "variable " + v.path("name").asText(), v, uid, problems);
      }
      for (JsonNode a : d.json().path("annotations").path("list")) {
        if (a.has("query")) {
          checkSource(d, "annotation " + a.path("name").asText(), a, uid, problems);
        }
      }
      for (JsonNode panel : d.panels()) {
        checkSource(d, "panel " + panel.path("title").asText(), panel, uid, problems);
        for (JsonNode target : panel.path("targets")) {
          checkSource(d, "panel " + panel.path("title").asText(), target, uid, problems);
          if (!target.path("rawQuery").asBoolean()) {
            problems.add(
                d.uid() + ": panel " + panel.path("title").asText() + " is not raw InfluxQL");
          }
        }
      }
      for (Dashboards.Query q : d.queries()) {
        Matcher m = VARIABLE.matcher(q.influxql());
        while (m.find()) {
          if (!GRAFANA_VARIABLES.contains(m.group(1)) && !defined.contains(m.group(1))) {
            problems.add(q + ": $" + m.group(1) + " is not a variable of the dashboard");
          }
        }
      }
    }
    assertTrue(problems.isEmpty(), String.join("\n", problems));
  }

  private static void checkSource(
      Dashboards.Dashboard d, String where, JsonNode node, String uid, List<String> problems) {
    String used = node.path("datasource").path("uid").asText();
    if (!used.equals(uid)) {
      problems.add(d.uid() + ": " + where + " uses data source '" + used + "', not " + uid);
    }
  }

  private static Map<String, Object> yaml(Path file) throws Exception {
    try (Reader in = Files.newBufferedReader(file)) {
      return new Yaml(new SafeConstructor(new LoaderOptions())).load(in);
    }
  }
}
