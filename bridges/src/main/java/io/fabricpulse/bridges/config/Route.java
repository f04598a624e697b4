package io.fabricpulse.bridges.config;

import io.fabricpulse.avro.Alert;
import io.fabricpulse.avro.AlertKind;
import io.fabricpulse.avro.Severity;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Which alerts a robot gets: every condition given must hold (an empty set or list means any), and
 * who is @-mentioned when such an alert is CRITICAL.
 *
 * @param nodeGlobs shell-style globs ({@code gpu0*}, {@code gpu00?}) of which one must match the
 *     alert's node; an alert without a node does not match a route with node globs
 * @param labels label values that must all be equal on the alert
 */
public record Route(
    Set<Severity> severities,
    Set<AlertKind> kinds,
    Set<String> clusters,
    List<String> nodeGlobs,
    Map<String, String> labels,
    List<Person> mention) {

  public boolean matches(Alert alert) {
    if (!severities.isEmpty() && !severities.contains(alert.getSeverity())) {
      return false;
    }
    if (!kinds.isEmpty() && !kinds.contains(alert.getKind())) {
      return false;
    }
    if (!clusters.isEmpty() && !clusters.contains(alert.getCluster())) {
      return false;
    }
    if (!nodeGlobs.isEmpty()) {
      String node = alert.getNode();
      if (node == null || nodeGlobs.stream().noneMatch(g -> glob(g).matcher(node).matches())) {
        return false;
      }
    }
    for (Map.Entry<String, String> label : labels.entrySet()) {
      if (!label.getValue().equals(alert.getLabels().get(label.getKey()))) {
        return false;
      }
    }
    return true;
  }

  /** A glob as a regular expression: {@code *} any run, {@code ?} one character. */
  static Pattern glob(String glob) {
    StringBuilder regex = new StringBuilder();
    for (int i = 0; i < glob.length(); i++) {
      char c = glob.charAt(i);
      if (c == '*') {
        regex.append(".*");
      } else if (c == '?') {
        regex.append('.');
      } else {
        regex.append(Pattern.quote(String.valueOf(c)));
      }
    }
    return Pattern.compile(regex.toString());
  }
}
