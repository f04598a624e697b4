package io.fabricpulse.collectors.sysfs;

import io.fabricpulse.avro.Counter;
import io.fabricpulse.avro.CounterGroup;
import io.fabricpulse.avro.PortCounters;
import io.fabricpulse.collectors.core.ParseResult;
import io.fabricpulse.collectors.core.SampleContext;
import java.io.IOException;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.regex.Pattern;

/**
 * Reads one sample of every IB/RoCE port under {@code class/infiniband} of a {@link SysfsTree}: one
 * {@link PortCounters} record per {@code <dev>/ports/<n>}, with every counter of {@code counters/},
 * {@code hw_counters/} and {@code counters_ext/} as read (no scaling, no deltas), the port state,
 * rate and link layer, and for Ethernet (RoCE) ports the netdev with its MTU and speed.
 *
 * <p>A file that fails to read is listed in {@code read_errors} and the rest of the sample is kept;
 * a value that is not a number is kept as {@code unavailable} text (e.g. {@code N/A (no PMA)}).
 */
public final class SysfsPortCounterReader {

  public static final String CLASS_INFINIBAND = "class/infiniband";
  public static final String CLASS_NET = "class/net";

  /** Writable cache period of hw_counters in ms, a setting and not a counter [K-sysfs]. */
  static final String LIFESPAN = "lifespan";

  private final SysfsTree tree;
  private final Pattern include;
  private final Pattern exclude;

  /** Reads every device. */
  public SysfsPortCounterReader(SysfsTree tree) {
    this(tree, null, null);
  }

  /**
   * @param include regex a device name must match in full to be read; null reads every device
   * @param exclude regex of device names never read (restricted PFs flood the kernel log when
   *     read); null excludes none
   */
  public SysfsPortCounterReader(SysfsTree tree, Pattern include, Pattern exclude) {
    this.tree = tree;
    this.include = include;
    this.exclude = exclude;
  }

  /** The devices this reader samples, after include/exclude, sorted. */
  public List<String> devices() {
    List<String> selected = new ArrayList<>();
    for (String device : tree.list(CLASS_INFINIBAND)) {
      boolean in = include == null || include.matcher(device).matches();
      boolean out = exclude != null && exclude.matcher(device).matches();
      if (in && !out) {
        selected.add(device);
      }
    }
    return selected;
  }

  /** One record per port of every selected device, at {@code context.time()}. */
  public ParseResult<PortCounters> read(SampleContext context) {
    ParseResult<PortCounters> result = new ParseResult<>();
    for (String device : devices()) {
      for (int port : ports(device)) {
        result.add(readPort(context, device, port, result));
      }
    }
    return result;
  }

  private List<Integer> ports(String device) {
    List<Integer> ports = new ArrayList<>();
    for (String name : tree.list(CLASS_INFINIBAND + "/" + device + "/ports")) {
      if (name.chars().allMatch(Character::isDigit) && !name.isEmpty()) {
        ports.add(Integer.parseInt(name));
      }
    }
    ports.sort(Comparator.naturalOrder());
    return ports;
  }

  private PortCounters readPort(
      SampleContext context, String device, int port, ParseResult<PortCounters> result) {
    String dir = CLASS_INFINIBAND + "/" + device + "/ports/" + port;
    List<String> readErrors = new ArrayList<>();
    List<Counter> counters = new ArrayList<>();
    readGroup(dir + "/counters", CounterGroup.COUNTERS, counters, readErrors, result);
    readGroup(dir + "/hw_counters", CounterGroup.HW_COUNTERS, counters, readErrors, result);
    readGroup(dir + "/counters_ext", CounterGroup.COUNTERS_EXT, counters, readErrors, result);

    String rate = SysfsValues.firstLine(readOptional(dir + "/rate", readErrors));
    SysfsValues.LinkRate linkRate = SysfsValues.parseRate(rate);
    String linkLayer = SysfsValues.firstLine(readOptional(dir + "/link_layer", readErrors));

    PortCounters.Builder record =
        PortCounters.newBuilder()
            .setCluster(context.cluster())
            .setNode(context.node())
            .setBootId(context.bootId())
            .setSeq(context.nextSeq())
            .setTime(context.time().truncatedTo(ChronoUnit.MILLIS))
            .setDevice(device)
            .setPort(port)
            .setLinkLayer(linkLayer)
            .setState(SysfsValues.stateName(readOptional(dir + "/state", readErrors)))
            .setPhysState(SysfsValues.stateName(readOptional(dir + "/phys_state", readErrors)))
            .setRate(rate)
            .setRateGbps(linkRate.gbps())
            .setLinkWidth(linkRate.width())
            .setNetdev(null)
            .setNetdevMtu(null)
            .setNetdevSpeedMbps(null)
            .setCounters(counters)
            .setReadErrors(readErrors);
    if ("Ethernet".equals(linkLayer)) {
      String netdev = netdev(device, port, dir);
      if (netdev != null) {
        record.setNetdev(netdev);
        String netDir = CLASS_NET + "/" + netdev;
        record.setNetdevMtu(toInt(readOptional(netDir + "/mtu", readErrors)));
        // speed reads -1 (or fails with EINVAL) while the link is down: unknown, not an error.
        Integer speed = toInt(readQuietly(netDir + "/speed"));
        record.setNetdevSpeedMbps(speed == null || speed < 0 ? null : speed);
      }
    }
    return record.build();
  }

  private void readGroup(
      String groupDir,
      CounterGroup group,
      List<Counter> counters,
      List<String> readErrors,
      ParseResult<PortCounters> result) {
    List<String> names = tree.list(groupDir);
    boolean extended =
        group == CounterGroup.COUNTERS && CounterWidths.hasExtendedOnlyCounters(names);
    for (String name : names) {
      if (group == CounterGroup.HW_COUNTERS && LIFESPAN.equals(name)) {
        continue;
      }
      String path = groupDir + "/" + name;
      String text;
      try {
        text = tree.read(path);
      } catch (IOException e) {
        String reason = reason(e);
        readErrors.add(path + ": " + reason);
        counters.add(
            counter(name, group, null, CounterWidths.widthOf(group, name, extended, null), reason));
        continue;
      }
      Long value = SysfsValues.parseUnsigned(text);
      String unavailable = null;
      if (value == null) {
        unavailable = text.strip();
        if (!SysfsValues.NO_PMA.equals(unavailable)) {
          result.skip(path, 1, "not an unsigned 64-bit number: '" + unavailable + "'");
        }
      }
      counters.add(
          counter(
              name,
              group,
              value,
              CounterWidths.widthOf(group, name, extended, value),
              unavailable));
    }
  }

  private static Counter counter(
      String name, CounterGroup group, Long value, int width, String unavailable) {
    return Counter.newBuilder()
        .setName(name)
        .setGroup(group)
        .setValue(value)
        .setWidth(width)
        .setUnavailable(unavailable)
        .build();
  }

  /**
   * The netdev of a RoCE port: {@code gid_attrs/ndevs/0} names it (it fails with EINVAL when GID 0
   * is unset, which is not an error); otherwise the PCI function's {@code device/net/*}, choosing
   * by {@code dev_port} (0-based) when the function has several.
   */
  private String netdev(String device, int port, String portDir) {
    String fromGid = SysfsValues.firstLine(readQuietly(portDir + "/gid_attrs/ndevs/0"));
    if (fromGid != null) {
      return fromGid;
    }
    String netDir = CLASS_INFINIBAND + "/" + device + "/device/net";
    List<String> candidates = tree.list(netDir);
    if (candidates.size() <= 1) {
      return candidates.isEmpty() ? null : candidates.get(0);
    }
    for (String candidate : candidates) {
      Integer devPort = toInt(readQuietly(netDir + "/" + candidate + "/dev_port"));
      if (devPort != null && devPort == port - 1) {
        return candidate;
      }
    }
    return candidates.get(0);
  }

  private String readOptional(String path, List<String> readErrors) {
    try {
      return tree.readIfPresent(path);
    } catch (IOException e) {
      readErrors.add(path + ": " + reason(e));
      return null;
    }
  }

  private String readQuietly(String path) {
    try {
      return tree.readIfPresent(path);
    } catch (IOException e) {
      return null;
    }
  }

  private static Integer toInt(String text) {
    String line = SysfsValues.firstLine(text);
    if (line == null) {
      return null;
    }
    try {
      return Integer.parseInt(line);
    } catch (NumberFormatException e) {
      return null;
    }
  }

  private static String reason(IOException e) {
    return e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
  }
}
