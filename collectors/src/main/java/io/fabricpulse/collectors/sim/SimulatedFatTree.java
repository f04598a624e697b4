package io.fabricpulse.collectors.sim;

import io.fabricpulse.collectors.agent.FabricTask;
import io.fabricpulse.collectors.core.NodeIdentity;
import io.fabricpulse.collectors.fabric.IbSpeed;
import io.fabricpulse.collectors.switchports.SwitchCounterSweep;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A two-level fat tree under the simulated fleet: {@link #LEAVES} leaves, {@link #SPINES} spines.
 * HCA mlx5_h of every node is cabled to leaf (h mod 8) + 1 (rail-optimized), host ports first, then
 * one ISL from every leaf to every spine (spine port l is leaf l). It prints what the management
 * host's tools print: {@code iblinkinfo -l} and {@code perfquery -x}, so the real parsers run on it
 * through {@link FabricTask}. Switch port counters advance with the hosts' traffic: a host port
 * mirrors its HCA (the leaf sends what the HCA receives), and a leaf's uplinks carry its hosts'
 * traffic spread evenly over the spines.
 */
public final class SimulatedFatTree {
  public static final int LEAVES = 8;
  public static final int SPINES = 4;

  /** The management host whose agent runs the fabric role. */
  public static final String FABRIC_HOST = "fabric01";

  /** The fabric role's sweep interval. */
  public static final Duration SWEEP = Duration.ofSeconds(10);

  private static final Pattern RATE = Pattern.compile("\\((\\d+)X (\\w+)\\)");

  /** PortCountersExtended with the error counters (CapMask2 bit 1), perfquery's field order. */
  static final List<String> DATA =
      List.of(
          "PortXmitData",
          "PortRcvData",
          "PortXmitPkts",
          "PortRcvPkts",
          "PortUnicastXmitPkts",
          "PortUnicastRcvPkts",
          "PortMulticastXmitPkts",
          "PortMulticastRcvPkts");

  static final List<String> ERRORS =
      List.of(
          "SymbolErrorCounter",
          "LinkErrorRecoveryCounter",
          "LinkDownedCounter",
          "PortRcvErrors",
          "PortRcvRemotePhysicalErrors",
          "PortRcvSwitchRelayErrors",
          "PortXmitDiscards",
          "PortXmitConstraintErrors",
          "PortRcvConstraintErrors",
          "LocalLinkIntegrityErrors",
          "ExcessiveBufferOverrunErrors",
          "VL15Dropped",
          "PortXmitWait",
          "QP1Dropped");

  /** The sysfs counter of the HCA whose delta a leaf host port adds to each perfquery field. */
  private static final Map<String, String> MIRROR =
      Map.of(
          "PortXmitData", "port_rcv_data",
          "PortRcvData", "port_xmit_data",
          "PortXmitPkts", "port_rcv_packets",
          "PortRcvPkts", "port_xmit_packets",
          "PortUnicastXmitPkts", "unicast_rcv_packets",
          "PortUnicastRcvPkts", "unicast_xmit_packets",
          "PortMulticastXmitPkts", "multicast_rcv_packets",
          "PortMulticastRcvPkts", "multicast_xmit_packets",
          "LinkDownedCounter", "link_downed");

  /** One switch: node GUID, LID, description and its ports by number. */
  private static final class Switch {
    final long guid;
    final int lid;
    final String description;
    final Map<Integer, Port> ports = new LinkedHashMap<>();

    Switch(long guid, int lid, String description) {
      this.guid = guid;
      this.lid = lid;
      this.description = description;
    }
  }

  /** A switch port, its cable's far end and its counters. */
  private static final class Port {
    final int number;
    SimulatedPort hca; // the HCA at the far end of a host port
    long hcaGuid;
    int hcaLid;
    String hcaDescription;
    Switch peer; // the switch at the far end of an ISL
    int peerPort;
    final Map<String, Long> counters = new HashMap<>();
    final Map<String, Long> lastHca = new HashMap<>();

    Port(int number) {
      this.number = number;
      DATA.forEach(n -> counters.put(n, 0L));
      ERRORS.forEach(n -> counters.put(n, 0L));
    }

    void add(String name, long delta) {
      counters.merge(name, delta, Long::sum);
    }
  }

  /**
   * One scripted fault of kind {@link FaultKind#ISL_FLAP}, {@link FaultKind#ISL_SYMBOL_ERRORS} or
   * {@link FaultKind#ISL_NARROW_WIDTH} on the cable between leaf {@code leaf} and spine {@code
   * spine} (1-based), over [start, start + duration); a flap's cable is down for {@code down}, then
   * up for {@code up}, again.
   */
  public record IslFault(
      FaultKind kind,
      int leaf,
      int spine,
      Instant start,
      Duration duration,
      Duration down,
      Duration up) {
    boolean activeAt(Instant t) {
      return !t.isBefore(start) && t.isBefore(start.plus(duration));
    }

    private long cycleMillis() {
      return down.plus(up).toMillis();
    }

    /** Flaps begun by {@code t} (each a LinkDowned on both ends). */
    long flapsBy(Instant t) {
      if (t.isBefore(start)) {
        return 0;
      }
      Instant last = start.plus(duration).minusMillis(1);
      Instant until = t.isBefore(last) ? t : last;
      return Duration.between(start, until).toMillis() / cycleMillis() + 1;
    }

    boolean downAt(Instant t) {
      return activeAt(t) && Duration.between(start, t).toMillis() % cycleMillis() < down.toMillis();
    }
  }

  /** Symbol errors per second on a dirty ISL. */
  public static final long ISL_SYMBOL_ERRORS_PER_SECOND = 40;

  private final List<IslFault> faults = new ArrayList<>();
  // read under the simulator's lock (FabricSimulator.faults), so not under this one
  private final List<InjectedFault> injectedFaults = new CopyOnWriteArrayList<>();
  private final Map<IslFault, Long> applied = new HashMap<>();
  private final FabricSimulator simulator;
  private final List<Switch> leaves = new ArrayList<>();
  private final List<Switch> spines = new ArrayList<>();
  private final List<Port> hostPorts = new ArrayList<>();

  public SimulatedFatTree(FabricSimulator simulator) {
    this.simulator = simulator;
    for (int l = 0; l < LEAVES; l++) {
      leaves.add(new Switch(0x0002000000000000L + l + 1, l + 1, String.format("leaf%02d", l + 1)));
    }
    for (int s = 0; s < SPINES; s++) {
      spines.add(
          new Switch(
              0x0003000000000000L + s + 1, LEAVES + s + 1, String.format("spine%02d", s + 1)));
    }
    int lid = LEAVES + SPINES + 1;
    int[] nextPort = new int[LEAVES];
    long hcaIndex = 0;
    for (String node : simulator.nodes()) {
      List<SimulatedPort> hcas = simulator.hcaPorts(node);
      for (int h = 0; h < hcas.size(); h++) {
        Switch leaf = leaves.get(h % LEAVES);
        Port port = new Port(++nextPort[h % LEAVES]);
        port.hca = hcas.get(h);
        port.hcaGuid = 0x0001000000000000L + ++hcaIndex;
        port.hcaLid = lid++;
        port.hcaDescription = node + " " + hcas.get(h).device;
        leaf.ports.put(port.number, port);
        hostPorts.add(port);
      }
    }
    for (int l = 0; l < LEAVES; l++) {
      Switch leaf = leaves.get(l);
      int first = nextPort[l] + 1;
      for (int s = 0; s < SPINES; s++) {
        Port up = new Port(first + s);
        Port down = new Port(l + 1);
        up.peer = spines.get(s);
        up.peerPort = down.number;
        down.peer = leaf;
        down.peerPort = up.number;
        leaf.ports.put(up.number, up);
        spines.get(s).ports.put(down.number, down);
      }
    }
  }

  /** The fabric role of {@link #FABRIC_HOST}: iblinkinfo -l sweeps, then perfquery -x. */
  public FabricTask fabricTask(NodeIdentity identity) {
    return new FabricTask(
        identity,
        SWEEP,
        "iblinkinfo",
        this::iblinkinfo,
        null,
        new SwitchCounterSweep(this::perfquery));
  }

  /**
   * Scripts a dirty cable ({@link FaultKind#ISL_SYMBOL_ERRORS}) or a cable at 2X ({@link
   * FaultKind#ISL_NARROW_WIDTH}) between leaf {@code leaf} and spine {@code spine} (1-based).
   */
  public InjectedFault islFault(
      FaultKind kind, int leaf, int spine, Instant start, Duration duration) {
    if (kind == FaultKind.ISL_FLAP) {
      throw new IllegalArgumentException("a flap is scripted with islFlap");
    }
    return script(new IslFault(kind, leaf, spine, start, duration, Duration.ZERO, Duration.ZERO));
  }

  /**
   * Scripts {@code flaps} drops of the cable between leaf {@code leaf} and spine {@code spine}:
   * down for {@code down}, up for {@code up}, each drop a LinkDowned on both ends.
   */
  public InjectedFault islFlap(
      int leaf, int spine, Instant start, int flaps, Duration down, Duration up) {
    Duration duration = down.plus(up).multipliedBy(flaps).minus(up);
    return script(new IslFault(FaultKind.ISL_FLAP, leaf, spine, start, duration, down, up));
  }

  private synchronized InjectedFault script(IslFault fault) {
    if (fault.kind().source() != FaultKind.Source.FABRIC) {
      throw new IllegalArgumentException(fault.kind() + " is no fault of a leaf-spine cable");
    }
    if (fault.leaf() < 1 || fault.leaf() > LEAVES || fault.spine() < 1 || fault.spine() > SPINES) {
      throw new IllegalArgumentException("no ISL leaf" + fault.leaf() + "-spine" + fault.spine());
    }
    faults.add(fault);
    Switch leafSwitch = leaves.get(fault.leaf() - 1);
    Switch spineSwitch = spines.get(fault.spine() - 1);
    Port up = uplink(fault);
    // the end whose alert is expected first: the spine counts a dirty cable's symbol errors
    boolean atSpine = fault.kind() == FaultKind.ISL_SYMBOL_ERRORS;
    Switch subject = atSpine ? spineSwitch : leafSwitch;
    int port = atSpine ? up.peerPort : up.number;
    String leafEnd = leafSwitch.description + " port " + up.number;
    String spineEnd = spineSwitch.description + " port " + up.peerPort;
    List<String> affected = atSpine ? List.of() : List.of(spineEnd);
    InjectedFault injected =
        new InjectedFault(
            fault.kind(),
            subject.description,
            guid(subject),
            port,
            fault.start(),
            fault.start().plus(fault.duration()),
            leafEnd + " <-> " + spineEnd,
            affected);
    injectedFaults.add(injected);
    return injected;
  }

  /**
   * A switch's node GUID as the fabric role names the switch's device: {@code 0x0002000000000001}.
   */
  static String guid(Switch sw) {
    return String.format("0x%016x", sw.guid);
  }

  private Port uplink(IslFault f) {
    return leaves.get(f.leaf() - 1).ports.values().stream()
        .filter(p -> p.peer == spines.get(f.spine() - 1))
        .findFirst()
        .orElseThrow();
  }

  /** The ISL faults scripted so far, as the detection check reads them. */
  public List<InjectedFault> injectedFaults() {
    return List.copyOf(injectedFaults);
  }

  /** Links in the fabric: one per host HCA port and one per leaf-spine pair. */
  public int cables() {
    return hostPorts.size() + LEAVES * SPINES;
  }

  /** What {@code iblinkinfo -l} prints now: every port of every switch, then every HCA port. */
  public synchronized String iblinkinfo() {
    advanceCounters();
    StringBuilder out = new StringBuilder();
    List<Switch> all = new ArrayList<>(leaves);
    all.addAll(spines);
    for (Switch sw : all) {
      for (Port port : sw.ports.values()) {
        if (port.hca != null) {
          Link link = link(port.hca);
          line(out, sw.guid, sw.description, sw.lid, port.number, link);
          if (link != null) {
            remote(out, port.hcaGuid, port.hcaLid, 1, port.hcaDescription, verdict(link, port.hca));
          }
        } else {
          Link link = islLink(sw, port);
          line(out, sw.guid, sw.description, sw.lid, port.number, link);
          if (link != null) {
            // both ends run 4X: iblinkinfo says what a narrowed ISL could be
            String verdict = link.width() < 4 ? "Could be 4X" : " ";
            remote(
                out, port.peer.guid, port.peer.lid, port.peerPort, port.peer.description, verdict);
          }
        }
      }
    }
    for (Switch leaf : leaves) {
      for (Port port : leaf.ports.values()) {
        if (port.hca == null) {
          continue;
        }
        Link link = link(port.hca);
        line(out, port.hcaGuid, port.hcaDescription, port.hcaLid, 1, link);
        if (link != null) {
          remote(out, leaf.guid, leaf.lid, port.number, leaf.description, verdict(link, port.hca));
        }
      }
    }
    return out.toString();
  }

  /** What {@code perfquery -x LID PORT} prints for each of {@code ports} of the switch at lid. */
  public synchronized String perfquery(int lid, List<Integer> ports, boolean extended)
      throws IOException {
    if (!extended) {
      throw new IOException("simulated switches answer PortCountersExtended (-x) only");
    }
    Switch sw = byLid(lid);
    StringBuilder out = new StringBuilder();
    for (int number : ports) {
      Port port = sw.ports.get(number);
      if (port == null) {
        throw new IOException("ibwarn: lid " + lid + " has no port " + number);
      }
      out.append(
          String.format(
              "# Port extended counters: Lid %d port %d (CapMask: 0x5300 CapMask2: 0x0000002)\n",
              lid, number));
      field(out, "PortSelect", Integer.toString(number));
      field(out, "CounterSelect", "0x0000");
      DATA.forEach(n -> field(out, n, Long.toString(port.counters.get(n))));
      field(out, "CounterSelect2", "0x00000000");
      ERRORS.forEach(n -> field(out, n, Long.toString(port.counters.get(n))));
    }
    return out.toString();
  }

  private Switch byLid(int lid) throws IOException {
    for (Switch sw : leaves) {
      if (sw.lid == lid) {
        return sw;
      }
    }
    for (Switch sw : spines) {
      if (sw.lid == lid) {
        return sw;
      }
    }
    throw new IOException("ibwarn: no response from lid " + lid);
  }

  /**
   * Adds what the HCAs counted since the last sweep to their leaf ports, and each leaf's host
   * traffic, split evenly, to its uplinks and the spine ports at their far end.
   */
  private void advanceCounters() {
    synchronized (simulator) {
      advanceCountersLocked();
      advanceFaults();
    }
  }

  private void advanceCountersLocked() {
    for (Switch leaf : leaves) {
      Map<String, Long> upDelta = new HashMap<>();
      for (Port port : leaf.ports.values()) {
        if (port.hca == null) {
          continue;
        }
        for (Map.Entry<String, String> m : MIRROR.entrySet()) {
          long now = port.hca.pma.getOrDefault(m.getValue(), 0L);
          Long last = port.lastHca.put(m.getValue(), now);
          // an HCA counter that went back (cleared, rebooted) counts from zero again
          long delta = last == null ? now : (now >= last ? now - last : now);
          port.add(m.getKey(), delta);
          if (DATA.contains(m.getKey())) {
            upDelta.merge(m.getKey(), delta, Long::sum);
          }
        }
      }
      for (Port up : leaf.ports.values()) {
        if (up.peer == null) {
          continue;
        }
        Port down = up.peer.ports.get(up.peerPort);
        upDelta.forEach(
            (name, delta) -> {
              // the leaf receives from hosts what it sends up, and sends them what comes down
              String uplink = swapDirection(name);
              up.add(uplink, delta / SPINES);
              down.add(name, delta / SPINES);
            });
      }
    }
  }

  /** The faults of the cable on {@code port} of {@code sw}, an ISL port. */
  private List<IslFault> faultsOn(Switch sw, Port port) {
    Switch leaf = leaves.contains(sw) ? sw : port.peer;
    Switch spine = leaves.contains(sw) ? port.peer : sw;
    int l = leaves.indexOf(leaf) + 1;
    int s = spines.indexOf(spine) + 1;
    return faults.stream().filter(f -> f.leaf() == l && f.spine() == s).toList();
  }

  private Link islLink(Switch sw, Port port) {
    Instant now = simulator.now();
    int width = 4;
    for (IslFault f : faultsOn(sw, port)) {
      if (f.kind() == FaultKind.ISL_FLAP && f.downAt(now)) {
        return null;
      }
      if (f.kind() == FaultKind.ISL_NARROW_WIDTH && f.activeAt(now)) {
        width = 2;
      }
    }
    return new Link(width, IbSpeed.NDR);
  }

  /** Flaps add LinkDowned on both ends; a dirty cable adds symbol errors at the spine. */
  private void advanceFaults() {
    Instant now = simulator.now();
    for (IslFault f : faults) {
      Port up = uplink(f);
      Port down = spines.get(f.spine() - 1).ports.get(up.peerPort);
      long total =
          switch (f.kind()) {
            case ISL_FLAP -> f.flapsBy(now);
            case ISL_SYMBOL_ERRORS -> {
              Instant until =
                  now.isBefore(f.start().plus(f.duration())) ? now : f.start().plus(f.duration());
              yield now.isBefore(f.start())
                  ? 0
                  : Duration.between(f.start(), until).toSeconds() * ISL_SYMBOL_ERRORS_PER_SECOND;
            }
            default -> 0; // ISL_NARROW_WIDTH changes the width, no counter
          };
      long delta = total - applied.getOrDefault(f, 0L);
      if (delta <= 0) {
        continue;
      }
      applied.put(f, total);
      if (f.kind() == FaultKind.ISL_FLAP) {
        up.add("LinkDownedCounter", delta);
        down.add("LinkDownedCounter", delta);
      } else {
        down.add("SymbolErrorCounter", delta);
      }
    }
  }

  private static String swapDirection(String name) {
    return name.contains("Xmit") ? name.replace("Xmit", "Rcv") : name.replace("Rcv", "Xmit");
  }

  private record Link(int width, IbSpeed speed) {}

  /** The HCA's link as its sysfs rate names it; null when the port is down. */
  private static Link link(SimulatedPort hca) {
    if (!hca.up) {
      return null;
    }
    return parse(hca.rate != null ? hca.rate : hca.nominalRate);
  }

  /**
   * iblinkinfo's verdict on a host link: both ends (the HCA and the leaf) support the HCA's nominal
   * rate, so a link trained below it could be that, e.g. {@code Could be 106.25 Gbps} for NDR lanes
   * running at HDR (width first, then lane speed, as iblinkinfo prints them).
   */
  private static String verdict(Link active, SimulatedPort hca) {
    Link nominal = parse(hca.nominalRate);
    List<String> could = new ArrayList<>();
    if (active.width() < nominal.width()) {
      could.add("Could be " + nominal.width() + "X");
    }
    if (active.speed().ordinal() < nominal.speed().ordinal()) {
      could.add("Could be " + nominal.speed().laneGbps() + " Gbps");
    }
    return could.isEmpty() ? " " : String.join(" ", could);
  }

  private static Link parse(String rate) {
    Matcher m = RATE.matcher(rate);
    if (!m.find()) {
      return new Link(4, IbSpeed.NDR);
    }
    IbSpeed speed = IbSpeed.fromName(m.group(2).toUpperCase(Locale.ROOT));
    return new Link(Integer.parseInt(m.group(1)), speed != null ? speed : IbSpeed.NDR);
  }

  private static void line(
      StringBuilder out, long guid, String description, int lid, int port, Link link) {
    out.append(String.format("0x%016x \"%30s\" %6d %4d[  ] ==(", guid, description, lid, port));
    if (link == null) {
      out.append("                Down/ Polling)==>             [  ] \"\" ( )\n");
    } else {
      out.append(
          String.format(
              " %s %13s Gbps Active/  LinkUp)==>", link.width() + "X", link.speed().laneGbps()));
    }
  }

  private static void remote(StringBuilder out, long guid, int lid, int port, String description) {
    remote(out, guid, lid, port, description, " ");
  }

  private static void remote(
      StringBuilder out, long guid, int lid, int port, String description, String verdict) {
    out.append(
        String.format(
            "  0x%016x %6d %4d[  ] \"%s\" (%s)\n", guid, lid, port, description, verdict));
  }

  private static void field(StringBuilder out, String name, String value) {
    StringBuilder label = new StringBuilder(name).append(':');
    while (label.length() < 33) {
      label.append('.');
    }
    out.append(label).append(value).append('\n');
  }
}
