package io.fabricpulse.app.interactive;

import io.fabricpulse.avro.Alert;
import java.util.Locale;

/**
 * Which open alerts a query asks for; every part optional. {@code node} is a node name or {@code
 * cluster/node}; {@code kind} and {@code severity} are their enum symbols, in any case.
 */
record AlertFilter(String node, String kind, String severity) {

  boolean test(Alert alert) {
    if (node != null) {
      String name = alert.getNode() == null ? "" : alert.getNode();
      if (!node.equals(name) && !node.equals(alert.getCluster() + "/" + name)) {
        return false;
      }
    }
    if (kind != null && !kind.toUpperCase(Locale.ROOT).equals(alert.getKind().name())) {
      return false;
    }
    return severity == null || severity.toUpperCase(Locale.ROOT).equals(alert.getSeverity().name());
  }
}
