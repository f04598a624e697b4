package io.fabricpulse.streams.detect.nccl;

import io.fabricpulse.avro.NcclLog;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * fabric.raw.nccl records for the detector stories. Most are synthetic records of one NCCL process,
 * as the collectors' NcclLineParser emits them: the raw line in NCCL's {@code host:pid:tid [dev]
 * NCCL INFO} layout (format strings of docs/formats.md, NCCL logs) with the kind and attrs the
 * parser extracts; {@link #realLine} wraps a real line, unchanged. The streams module does not see
 * the parser (no compile dependency on collectors); the app test runs the real parser end to end.
 */
final class NcclLines {

  static final String CLUSTER = "c1";
  static final long T0 = Instant.parse("2025-03-01T03:00:00Z").toEpochMilli();

  private final String node;
  private final String host;
  private final String job;
  private final String file;
  private final int pid;
  private long seq;

  NcclLines(String node, String host, String job) {
    this.node = node;
    this.host = host;
    this.job = job;
    this.file = "/var/log/slurm/slurm-" + job + ".out";
    this.pid = 4242;
  }

  /** Lines of {@code host} collected on the same node, for job {@code job}. */
  static NcclLines of(String host, String job) {
    return new NcclLines(host, host, job);
  }

  String key() {
    return CLUSTER + "/" + node;
  }

  NcclLog version(int second) {
    return info(second, "VERSION", "NCCL version 2.21.5+cuda12.4", Map.of("version", "2.21.5"));
  }

  NcclLog netIbUsing(int second, String... hcas) {
    StringBuilder list = new StringBuilder();
    for (int i = 0; i < hcas.length; i++) {
      list.append(" [").append(i).append(']').append(hcas[i]).append(":1/IB");
    }
    return info(
        second,
        "NET_IB_USING",
        "NET/IB : Using" + list + " [RO]; OOB eth0:10.0.0.17<0>",
        Map.of("net", "IB", "hcas", String.join(",", hcas)));
  }

  NcclLog netSocketUsing(int second) {
    return info(
        second,
        "NET_SOCKET_USING",
        "NET/Socket : Using [0]eth0:10.0.0.17<0>",
        Map.of("net", "Socket", "ifaces", "eth0:10.0.0.17<0>"));
  }

  NcclLog ibNoDevice(int second) {
    return info(second, "NET_IB_NO_DEVICE", "NET/IB : No device found.", Map.of("net", "IB"));
  }

  NcclLog usingNetwork(int second, String net) {
    return info(second, "USING_NETWORK", "Using network " + net, Map.of("net", net));
  }

  NcclLog gdrHca(int second, int hca, String dev, boolean enabled) {
    return info(
        second,
        "GDR_HCA",
        "NET/IB : GPU Direct RDMA "
            + (enabled ? "Enabled" : "Disabled")
            + " for HCA "
            + hca
            + " '"
            + dev
            + "'",
        Map.of(
            "transport", "IB", "enabled", Boolean.toString(enabled), "hca", "" + hca, "dev", dev));
  }

  NcclLog channel(int second, String net, boolean gdrdma) {
    String via = "NET/" + net + "/0" + (gdrdma ? "/GDRDMA" : "");
    Map<String, String> attrs = new LinkedHashMap<>();
    attrs.put("transport", "NET/" + net);
    attrs.put("net", net);
    attrs.put("gdr", Boolean.toString(gdrdma));
    attrs.put("via", via);
    return info(second, "CHANNEL", "Channel 00/0 : 0[0] -> 8[0] [send] via " + via, attrs);
  }

  NcclLog ringSummary(int second, int gdr) {
    return info(
        second,
        "RING_SUMMARY",
        "Connected all rings, use ring PXN 0 GDR " + gdr,
        Map.of("pxn", "0", "gdr", "" + gdr));
  }

  NcclLog completionError(int second, String peer) {
    String message =
        "NET/IB : Got completion from peer "
            + peer
            + " with status=12 opcode=0 len=0 vendor err"
            + " 129 (Recv) localGid ::ffff:10.0.0.17 remoteGids::ffff:10.0.0.18 hca mlx5_0";
    Map<String, String> attrs = new LinkedHashMap<>();
    attrs.put("event", "completion_error");
    attrs.put("transport", "IB");
    attrs.put("peer", peer);
    attrs.put("status", "12");
    attrs.put("opcode", "0");
    attrs.put("vendor_err", "129");
    attrs.put("request", "Recv");
    attrs.put("hca", "mlx5_0");
    return record(second, "WARN", "WARN", message, attrs);
  }

  /**
   * A real log line, unchanged, as the parser emits it: an {@code NCCL WARN} line becomes a WARN
   * record of the host in its {@code host:pid:tid} prefix (message after {@code NCCL WARN }, attr
   * src the {@code file:line} before it), any other line an APP_ERROR record without host. The time
   * is the line's own timestamp, or the time the collector read a line that has none.
   */
  static NcclLog realLine(String node, String job, Instant at, String raw) {
    return realLine(node, job, at, raw, Map.of());
  }

  /** {@link #realLine} with the attrs the parser extracts from the message (completion errors). */
  static NcclLog realLine(
      String node, String job, Instant at, String raw, Map<String, String> parsed) {
    Matcher warn = WARN_LINE.matcher(raw);
    boolean isWarn = warn.find();
    Map<String, String> attrs = new LinkedHashMap<>(parsed);
    NcclLog.Builder b =
        NcclLog.newBuilder()
            .setCluster(CLUSTER)
            .setNode(node)
            .setBootId("boot-1")
            .setSeq(0)
            .setTime(at)
            .setFile("/var/log/slurm/slurm-" + job + ".out")
            .setLineNo(1)
            .setJob(job)
            .setRawLine(raw);
    if (!isWarn) {
      return b.setKind("APP_ERROR").setAttrs(attrs).setMessage(raw.strip()).build();
    }
    if (warn.group("src") != null) {
      attrs.put("src", warn.group("src"));
    }
    return b.setHost(warn.group("host"))
        .setPid(Integer.parseInt(warn.group("pid")))
        .setTid(Integer.parseInt(warn.group("tid")))
        .setCudaDev(Integer.parseInt(warn.group("dev")))
        .setLevel("WARN")
        .setKind("WARN")
        .setAttrs(attrs)
        .setMessage(warn.group("msg"))
        .build();
  }

  private static final Pattern WARN_LINE =
      Pattern.compile(
          "(?<host>[^\\s:\\[\\]]+):(?<pid>\\d+):(?<tid>\\d+) \\[(?<dev>\\d+)\\]"
              + " (?:(?<src>\\S+:\\d+) )?NCCL WARN (?<msg>.*)$");

  private NcclLog info(int second, String kind, String message, Map<String, String> attrs) {
    return record(second, "INFO", kind, message, attrs);
  }

  private NcclLog record(
      int second, String level, String kind, String message, Map<String, String> attrs) {
    String prefix = host == null ? "" : host + ":" + pid + ":" + (pid + 7) + " [0] ";
    return NcclLog.newBuilder()
        .setCluster(CLUSTER)
        .setNode(node)
        .setBootId("boot-1")
        .setSeq(seq++)
        .setTime(Instant.ofEpochMilli(T0 + second * 1000L))
        .setFile(file)
        .setLineNo(seq)
        .setJob(job)
        .setHost(host)
        .setPid(host == null ? null : pid)
        .setTid(host == null ? null : pid + 7)
        .setCudaDev(host == null ? null : 0)
        .setLevel(level)
        .setNcclVersion("2.21.5")
        .setKind(kind)
        .setAttrs(new LinkedHashMap<>(attrs))
        .setMessage(message)
        .setRawLine(prefix + "NCCL " + level + " " + message)
        .build();
  }
}
