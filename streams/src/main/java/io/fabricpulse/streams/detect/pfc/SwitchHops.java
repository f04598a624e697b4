package io.fabricpulse.streams.detect.pfc;

import io.fabricpulse.avro.Alert;
import io.fabricpulse.avro.FabricLink;
import io.fabricpulse.avro.FabricNodeType;
import io.fabricpulse.avro.LinkPort;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The switch hops of a pause storm, from the cluster's links on fabric.topology: which switch each
 * stormed host port is cabled to, and the switches that link an origin's switch to a victim's.
 *
 * <p>Pause frames travel hop by hop: a receiver that cannot drain pauses its switch port, the
 * switch's queue towards it fills and the switch pauses its own upstream ports (the spines), which
 * pause the other leaves, which pause their hosts (the victims). A victim behind the origin's own
 * switch is one hop away; one behind another leaf is reached through the spines both leaves are
 * cabled to. The trace is the cabling's: which of those spines carried the pauses is not measured
 * (the collectors read no Ethernet switch counters).
 *
 * <p>A host port is found by its end's node description ({@code gpu007 mlx5_3}, the HCA's) and the
 * storm's node and RDMA device; a storm whose port no link names stays out of the trace and is
 * listed as {@code untraced}.
 */
final class SwitchHops {

  static final String ORIGIN_SWITCHES = "origin_switches";
  static final String VICTIM_SWITCHES = "victim_switches";
  static final String SPINES = "spines";
  static final String PATH = "path";
  static final String SWITCH_HOPS = "switch_hops";
  static final String UNTRACED = "untraced";

  /** A host port's switch end: the switch's name and port. */
  record Attachment(String switchName, int port) {}

  /** "node device" of a host end -> its switch end. */
  private final Map<String, Attachment> hosts = new TreeMap<>();

  /** Switch -> the switches it has a cable to. */
  private final Map<String, TreeSet<String>> neighbours = new TreeMap<>();

  private SwitchHops() {}

  static SwitchHops of(Iterable<FabricLink> links) {
    SwitchHops hops = new SwitchHops();
    for (FabricLink link : links) {
      hops.add(link.getEndA(), link.getEndB());
    }
    return hops;
  }

  private void add(LinkPort a, LinkPort b) {
    boolean aSwitch = isSwitch(a);
    boolean bSwitch = isSwitch(b);
    if (aSwitch && bSwitch) {
      neighbours.computeIfAbsent(name(a), k -> new TreeSet<>()).add(name(b));
      neighbours.computeIfAbsent(name(b), k -> new TreeSet<>()).add(name(a));
    } else if (aSwitch && b.getNodeDescription() != null) {
      hosts.put(b.getNodeDescription().toString(), new Attachment(name(a), a.getPort()));
    } else if (bSwitch && a.getNodeDescription() != null) {
      hosts.put(a.getNodeDescription().toString(), new Attachment(name(b), b.getPort()));
    }
  }

  private static boolean isSwitch(LinkPort end) {
    return end.getNodeType() == FabricNodeType.SWITCH;
  }

  private static String name(LinkPort end) {
    CharSequence description = end.getNodeDescription();
    return description != null && !description.toString().isBlank()
        ? description.toString()
        : end.getGuid().toString();
  }

  /** The switch port a storm's host port is cabled to, when a link names it. */
  Optional<Attachment> switchOf(Alert storm) {
    if (storm.getNode() == null || storm.getDevice() == null) {
      return Optional.empty();
    }
    return Optional.ofNullable(hosts.get(storm.getNode() + " " + storm.getDevice()));
  }

  /**
   * The trace as evidence: {@value #ORIGIN_SWITCHES} (the origins' switches), {@value
   * #VICTIM_SWITCHES} (each victim switch with its victim nodes), {@value #SPINES} (the switches
   * cabled to both an origin's switch and a victim's), {@value #PATH}, {@value #SWITCH_HOPS} (the
   * most switches a victim is behind: 1 on the origin's own switch, 3 through a spine) and {@value
   * #UNTRACED}. Empty when no storm's port is known.
   */
  Map<String, String> evidence(List<Alert> origins, List<Alert> victims) {
    Map<String, String> evidence = new LinkedHashMap<>();
    TreeSet<String> originSwitches = new TreeSet<>();
    TreeMap<String, TreeSet<String>> victimSwitches = new TreeMap<>();
    TreeSet<String> untraced = new TreeSet<>();
    for (Alert o : origins) {
      switchOf(o)
          .ifPresentOrElse(at -> originSwitches.add(at.switchName()), () -> untraced.add(label(o)));
    }
    for (Alert v : victims) {
      switchOf(v)
          .ifPresentOrElse(
              at ->
                  victimSwitches
                      .computeIfAbsent(at.switchName(), k -> new TreeSet<>())
                      .add(host(v)),
              () -> untraced.add(label(v)));
    }
    if (originSwitches.isEmpty() && victimSwitches.isEmpty()) {
      return evidence;
    }
    TreeSet<String> spines = new TreeSet<>();
    int mostHops = 0;
    for (String victimSwitch : victimSwitches.keySet()) {
      if (originSwitches.contains(victimSwitch)) {
        mostHops = Math.max(mostHops, 1);
        continue;
      }
      for (String originSwitch : originSwitches) {
        TreeSet<String> between = new TreeSet<>(neighboursOf(originSwitch));
        between.retainAll(neighboursOf(victimSwitch));
        if (!between.isEmpty()) {
          spines.addAll(between);
          mostHops = Math.max(mostHops, 3);
        } else if (neighboursOf(originSwitch).contains(victimSwitch)) {
          mostHops = Math.max(mostHops, 2);
        }
      }
    }
    List<String> victimGroups =
        victimSwitches.entrySet().stream()
            .map(e -> e.getKey() + " (" + String.join(", ", e.getValue()) + ")")
            .toList();
    evidence.put(ORIGIN_SWITCHES, String.join(", ", originSwitches));
    evidence.put(VICTIM_SWITCHES, String.join("; ", victimGroups));
    evidence.put(SPINES, String.join(", ", spines));
    evidence.put(PATH, path(originSwitches, spines, victimSwitches.keySet()));
    if (mostHops > 0) {
      evidence.put(SWITCH_HOPS, Integer.toString(mostHops));
    }
    if (!untraced.isEmpty()) {
      evidence.put(UNTRACED, String.join(", ", untraced));
    }
    return evidence;
  }

  private TreeSet<String> neighboursOf(String switchName) {
    return neighbours.getOrDefault(switchName, new TreeSet<>());
  }

  /**
   * {@code leaf01 -> spine01, spine02 -> leaf02, leaf03}; the victims' switches not already named.
   */
  private static String path(
      TreeSet<String> originSwitches, TreeSet<String> spines, Iterable<String> victimSwitches) {
    TreeSet<String> further = new TreeSet<>();
    victimSwitches.forEach(further::add);
    further.removeAll(originSwitches);
    StringBuilder path =
        new StringBuilder(originSwitches.isEmpty() ? "?" : String.join(", ", originSwitches));
    if (!spines.isEmpty()) {
      path.append(" -> ").append(String.join(", ", spines));
    }
    if (!further.isEmpty()) {
      path.append(" -> ").append(String.join(", ", further));
    }
    return path.toString();
  }

  private static String host(Alert storm) {
    return storm.getNode() != null ? storm.getNode() : storm.getCluster();
  }

  private static String label(Alert storm) {
    return host(storm) + (storm.getNetdev() != null ? " " + storm.getNetdev() : "");
  }
}
