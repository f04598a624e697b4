package io.fabricpulse.collectors.switchports;

import io.fabricpulse.avro.Counter;
import io.fabricpulse.avro.NodeCounters;
import io.fabricpulse.avro.PortCounters;
import io.fabricpulse.avro.RateSource;
import io.fabricpulse.collectors.core.NodeIdentity;
import io.fabricpulse.collectors.core.ParseResult;
import io.fabricpulse.collectors.core.SampleContext;
import io.fabricpulse.collectors.fabric.IbSpeed;
import io.fabricpulse.collectors.fabric.LinkEnd;
import io.fabricpulse.collectors.fabric.NodeType;
import io.fabricpulse.collectors.fabric.PortLink;
import io.fabricpulse.collectors.perfquery.PerfqueryParser;
import io.fabricpulse.schemas.nodes.NodeRecords;
import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Pattern;

/**
 * The switch-port counter sweep of the fabric role: after each topology sweep, every switch's ports
 * are read with perfquery, one switch at a time, and each switch gives one {@link NodeCounters} of
 * source PERFQUERY with a {@code PortSample} per port (docs/switch-ports.md).
 *
 * <ul>
 *   <li>node: the switch's NodeDescription when it is a plain name (letters, digits, {@code
 *       ._:;@+-}, no blank or {@code /}) that no other switch of the sweep carries, else its node
 *       GUID; device: the node GUID; port: the physical port.
 *   <li>counters under their sysfs names ({@link SysfsCounterNames}), so a switch port rates
 *       exactly like a host port: {@code perfquery -x} first (64-bit); when a switch's PMA lacks
 *       the error counters in PortCountersExtended (CapMask2 without
 *       IsAdditionalPortCountersExtendedSupported) those come from a second, basic {@code
 *       perfquery} with their PortCounters widths (they saturate), as the kernel's sysfs does.
 *   <li>state ACTIVE and the width and speed of the link (as sysfs prints them, {@code 100 Gb/sec
 *       (4X EDR)}) for a port with a link in this sweep; DOWN for a port that had one in an earlier
 *       sweep since the collector started, still queried so LinkDowned shows.
 *   <li>boot_id {@code switch:<guid>}: the collector host's reboot is no counter reset of the
 *       switch; a switch that reboots clears its counters, which the rate stage reads as a clear.
 * </ul>
 *
 * A switch whose perfquery fails or times out is reported and skipped; the others are still read.
 */
public final class SwitchCounterSweep {
  private static final Pattern PLAIN_NAME = Pattern.compile("[A-Za-z0-9._:;@+-]+");

  private final SwitchCounterQuery query;
  private final Map<String, Set<Integer>> knownPorts = new HashMap<>();
  private final Map<String, Long> seqs = new HashMap<>();

  public SwitchCounterSweep(SwitchCounterQuery query) {
    this.query = query;
  }

  /** The switches of a sweep's port lines, with the ports to read (see {@link SwitchPorts}). */
  public List<SwitchPorts> switchesOf(List<PortLink> lines) {
    Map<String, LinkEnd> switches = new LinkedHashMap<>();
    Map<String, Map<Integer, PortLink>> ports = new HashMap<>();
    for (PortLink line : lines) {
      LinkEnd local = line.local();
      if (local.type() != NodeType.SWITCH
          || local.guid() == null
          || local.lid() == null
          || local.port() < 1) {
        continue;
      }
      switches.putIfAbsent(local.guid(), local);
      ports.computeIfAbsent(local.guid(), g -> new TreeMap<>()).put(local.port(), line);
    }
    List<SwitchPorts> result = new ArrayList<>();
    for (LinkEnd sw : switches.values()) {
      Map<Integer, PortLink> lineByPort = ports.get(sw.guid());
      Set<Integer> known = knownPorts.computeIfAbsent(sw.guid(), g -> new TreeSet<>());
      lineByPort.forEach(
          (port, line) -> {
            if (line.connected()) {
              known.add(port);
            }
          });
      TreeMap<Integer, PortLink> read = new TreeMap<>();
      for (int port : known) {
        read.put(port, lineByPort.get(port)); // null: the sweep printed no line for the port
      }
      if (!read.isEmpty()) {
        result.add(new SwitchPorts(sw.guid(), sw.nodeDescription(), sw.lid(), read));
      }
    }
    return result;
  }

  /**
   * Reads every switch of the sweep's port lines at {@code time}; one NodeCounters per switch that
   * answered.
   */
  public ParseResult<NodeCounters> sweep(String cluster, Instant time, List<PortLink> lines)
      throws InterruptedException {
    ParseResult<NodeCounters> result = new ParseResult<>();
    List<SwitchPorts> switches = switchesOf(lines);
    Set<String> seen = new HashSet<>();
    Set<String> duplicated = new HashSet<>();
    for (SwitchPorts sw : switches) {
      if (sw.description() != null && !seen.add(sw.description())) {
        duplicated.add(sw.description());
      }
    }
    for (SwitchPorts sw : switches) {
      String node =
          sw.description() != null
                  && PLAIN_NAME.matcher(sw.description()).matches()
                  && !duplicated.contains(sw.description())
              ? sw.description()
              : sw.guid();
      try {
        NodeCounters counters = read(cluster, node, time, sw, result);
        if (counters != null) {
          result.add(counters);
        }
      } catch (IOException e) {
        result.skip("perfquery lid " + sw.lid(), 0, node + ": " + e.getMessage());
      }
    }
    return result;
  }

  private NodeCounters read(
      String cluster, String node, Instant time, SwitchPorts sw, ParseResult<NodeCounters> result)
      throws IOException, InterruptedException {
    List<Integer> ports = List.copyOf(sw.ports().keySet());
    String source = "perfquery -x lid " + sw.lid();
    Map<Integer, List<Counter>> byPort =
        parse(source, query.query(sw.lid(), ports, true), sw, result);
    boolean errorsMissing =
        byPort.values().stream()
            .anyMatch(c -> c.stream().noneMatch(x -> x.getName().equals("symbol_error")));
    if (errorsMissing) {
      String basicSource = "perfquery lid " + sw.lid();
      Map<Integer, List<Counter>> basic =
          parse(basicSource, query.query(sw.lid(), ports, false), sw, result);
      basic.forEach(
          (port, counters) -> {
            List<Counter> extended = byPort.computeIfAbsent(port, p -> new ArrayList<>());
            Set<String> have = new HashSet<>();
            extended.forEach(c -> have.add(c.getName()));
            counters.stream().filter(c -> !have.contains(c.getName())).forEach(extended::add);
          });
    }
    List<PortCounters> views = new ArrayList<>();
    for (Map.Entry<Integer, PortLink> entry : sw.ports().entrySet()) {
      List<Counter> counters = byPort.get(entry.getKey());
      if (counters == null || counters.isEmpty()) {
        result.skip(
            source, 0, node + " port " + entry.getKey() + ": perfquery printed no counters");
        continue;
      }
      views.add(view(cluster, node, time, sw.guid(), entry.getKey(), entry.getValue(), counters));
    }
    if (views.isEmpty()) {
      return null;
    }
    long seq = seqs.merge(sw.guid(), 1L, Long::sum) - 1;
    return NodeRecords.ofPorts(
        new NodeRecords.Cycle(cluster, node, bootId(sw.guid()), seq, time),
        RateSource.PERFQUERY,
        views);
  }

  /** The boot id of a switch's records: the switch's own, not the collector host's. */
  public static String bootId(String guid) {
    return "switch:" + guid;
  }

  /** Parsed sections by port, counters renamed to their sysfs names. */
  private static Map<Integer, List<Counter>> parse(
      String source, String text, SwitchPorts sw, ParseResult<NodeCounters> result) {
    SampleContext ctx =
        SampleContext.of(new NodeIdentity("-", sw.guid(), bootId(sw.guid())), Instant.EPOCH);
    ParseResult<PortCounters> parsed = new PerfqueryParser().parse(ctx, source, text, sw.guid());
    result.skipAll(parsed);
    Map<Integer, List<Counter>> byPort = new TreeMap<>();
    for (PortCounters section : parsed.records()) {
      List<Counter> counters = new ArrayList<>();
      for (Counter c : section.getCounters()) {
        counters.add(
            new Counter(
                SysfsCounterNames.of(c.getName()),
                c.getGroup(),
                c.getValue(),
                c.getWidth(),
                c.getUnavailable()));
      }
      byPort.put(section.getPort(), counters);
    }
    return byPort;
  }

  private static PortCounters view(
      String cluster,
      String node,
      Instant time,
      String guid,
      int port,
      PortLink line,
      List<Counter> counters) {
    PortCounters.Builder view =
        PortCounters.newBuilder()
            .setCluster(cluster)
            .setNode(node)
            .setBootId(bootId(guid))
            .setSeq(0)
            .setTime(time)
            .setDevice(guid)
            .setPort(port)
            .setLinkLayer("InfiniBand")
            .setCounters(counters);
    if (line != null && line.connected()) {
      view.setState(line.state() != null ? line.state().toUpperCase(Locale.ROOT) : "ACTIVE");
      if (line.physicalState() != null) {
        view.setPhysState(line.physicalState());
      }
      if (line.width() != null) {
        view.setLinkWidth(line.width() + "X");
      }
      if (line.width() != null && line.speed() != null) {
        double gbps = line.width() * nominalLaneGbps(line.speed());
        view.setRateGbps(gbps);
        view.setRate(gbpsText(gbps) + " Gb/sec (" + line.width() + "X " + line.speed() + ")");
      }
    } else {
      view.setState("DOWN");
      if (line != null && line.physicalState() != null) {
        view.setPhysState(line.physicalState());
      }
    }
    return view.build();
  }

  /**
   * The nominal per-lane data rate the kernel's sysfs {@code rate} uses (ib_verbs' {@code
   * ib_width_enum_to_int} times the speed's nominal Gb/s: SDR 2.5, DDR 5, QDR 10, FDR10 10, FDR 14,
   * EDR 25, HDR 50, NDR 100, XDR 200), so a switch port reads {@code 400 Gb/sec (4X NDR)} like the
   * HCA at its other end.
   */
  public static double nominalLaneGbps(IbSpeed speed) {
    return switch (speed) {
      case SDR -> 2.5;
      case DDR -> 5;
      case QDR, FDR10 -> 10;
      case FDR -> 14;
      case EDR -> 25;
      case HDR -> 50;
      case NDR -> 100;
      case XDR -> 200;
    };
  }

  private static String gbpsText(double gbps) {
    return gbps == Math.rint(gbps) ? Long.toString((long) gbps) : Double.toString(gbps);
  }
}
