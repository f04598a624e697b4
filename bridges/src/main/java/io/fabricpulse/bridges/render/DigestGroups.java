package io.fabricpulse.bridges.render;

import io.fabricpulse.avro.Alert;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * How a digest groups its alerts: the alerts of one incident (the topology join's {@code incident}
 * label: one kind on either end of one cable, alerts/README "The topology join") in one state are
 * one entry and one line naming both ends; the entries of a switch (a leaf or spine: an alert on
 * one of its ports, an incident with one end on it, or a host port's alert whose cable ends on it)
 * go under one heading per switch.
 */
public final class DigestGroups {

  /** The topology join's labels naming the other end of the alert's cable. */
  static final String PEER_NODE_LABEL = "peer_node";

  static final String PEER_TYPE_LABEL = "peer_type";

  /** The label the topology join gives every alert of one incident on one cable. */
  public static final String INCIDENT_LABEL = "incident";

  /**
   * A switch port alert's device is the switch's node GUID, {@code 0x} and 16 hex digits
   * (docs/switch-ports.md, "Names in the record"); a host port's is its RDMA device (mlx5_3).
   */
  private static final Pattern NODE_GUID = Pattern.compile("0x[0-9a-fA-F]{16}");

  private DigestGroups() {}

  /**
   * One digest line: the alerts of one incident in one state, or one alert.
   *
   * @param alerts in arrival order, never empty
   * @param switchName the switch the entry goes under, or null (a host or cluster alert)
   */
  public record Entry(List<Alert> alerts, String switchName) {}

  /** A switch's heading and its entries, or (switchName null) one entry on its own. */
  public record Group(String switchName, List<Entry> entries) {}

  /** The entries of {@code alerts}, in the order of each entry's first alert. */
  public static List<Entry> entries(List<Alert> alerts) {
    Map<String, List<Alert>> byKey = new LinkedHashMap<>();
    for (int i = 0; i < alerts.size(); i++) {
      Alert a = alerts.get(i);
      String incident = a.getLabels() == null ? null : a.getLabels().get(INCIDENT_LABEL);
      String key =
          incident == null || incident.isBlank() ? "alert/" + i : incident + "/" + a.getState();
      byKey.computeIfAbsent(key, k -> new ArrayList<>()).add(a);
    }
    List<Entry> out = new ArrayList<>();
    for (List<Alert> members : byKey.values()) {
      String switchName = null;
      for (Alert a : members) {
        if (isSwitchPort(a)) {
          switchName = a.getNode();
          break;
        }
      }
      for (int i = 0; switchName == null && i < members.size(); i++) {
        switchName = switchAtTheOtherEnd(members.get(i));
      }
      out.add(new Entry(List.copyOf(members), switchName));
    }
    return out;
  }

  /**
   * The switch at the other end of a host port alert's cable (the topology join's {@code peer_type}
   * SWITCH and {@code peer_node}), so a host's page goes under its leaf; null otherwise.
   */
  private static String switchAtTheOtherEnd(Alert a) {
    Map<String, String> labels = a.getLabels();
    if (labels == null || !"SWITCH".equals(labels.get(PEER_TYPE_LABEL))) {
      return null;
    }
    String name = labels.get(PEER_NODE_LABEL);
    return name == null || name.isBlank() ? null : name;
  }

  /**
   * The entries in groups: first every entry of no switch, each a group of its own, in order; then
   * one group per switch, in the order of its first entry (so a line under a switch's heading is
   * always that switch's).
   */
  public static List<Group> groups(List<Entry> entries) {
    List<Group> out = new ArrayList<>();
    Map<String, List<Entry>> bySwitch = new LinkedHashMap<>();
    for (Entry e : entries) {
      if (e.switchName() == null) {
        out.add(new Group(null, List.of(e)));
      } else {
        bySwitch.computeIfAbsent(e.switchName(), k -> new ArrayList<>()).add(e);
      }
    }
    bySwitch.forEach((name, group) -> out.add(new Group(name, List.copyOf(group))));
    return out;
  }

  /** Whether the alert is about a switch port (its device is a node GUID) and names its switch. */
  public static boolean isSwitchPort(Alert a) {
    return a.getNode() != null
        && a.getPort() != null
        && a.getDevice() != null
        && NODE_GUID.matcher(a.getDevice()).matches();
  }
}
