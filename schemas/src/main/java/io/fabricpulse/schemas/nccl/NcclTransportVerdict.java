package io.fabricpulse.schemas.nccl;

import io.fabricpulse.avro.NcclLog;
import io.fabricpulse.avro.NcclTransport;
import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * The transport an NCCL job uses on one host, folded from its {@link NcclLog} records: the network
 * ({@code IB}, {@code Socket}, or a plugin's name exactly as NCCL prints it after {@code NET/},
 * e.g. {@code IBext_v8}), whether GPUDirect RDMA is in use, and the log lines that say so.
 *
 * <p>Rules (docs/thresholds.md G1, G2, G4):
 *
 * <ul>
 *   <li>gdr is false when any HCA says {@code GPU Direct RDMA Disabled} (both the >= 2.13.4 and the
 *       pre-2.13 {@code (no module)} forms), a per-GPU distance check says Disabled, the ring
 *       summary says {@code GDR 0} (>= 2.24.3), or a NET channel lacks {@code /GDRDMA}
 *       [NCCL-topo][NCCL-generic][NCCL-net]. Otherwise true when HCAs say Enabled, NET channels
 *       carry {@code /GDRDMA} or the ring summary says {@code GDR 1}. Otherwise null: the log does
 *       not say. The per-GPU distance line is never required (TRACE only in 2.30 [NCCL-hist]).
 *   <li>net comes from the strongest statement seen: {@code Using network X} or the {@code NET/X/}
 *       of a channel; then {@code Assigned NET plugin X to comm} or the {@code NET/X : GPU Direct
 *       RDMA ... for HCA} line (printed for the net NCCL selected); then {@code NET/IB : Using
 *       [...]} or an IB completion error. {@code NET/Socket : Using} is never a signal: NCCL prints
 *       it for the bootstrap interface while the data path is IB. So {@code NET/IB : No device
 *       found.} turns into Socket only together with socket channels or {@code Using network
 *       Socket} [NCCL-ibinit][NCCL-init].
 * </ul>
 *
 * <p>One instance per group ({@link #groupKey}): a job starts one process per GPU, all printing
 * into the same job log, so the unit is the host and the job (or, without a job id, the log file),
 * not the pid. Mutable and not thread-safe; {@link #add} returns whether net or gdr changed.
 *
 * <p>Lives in {@code schemas} so the collectors ({@code parse}) and the streams detector share one
 * implementation; {@link #writeTo}/{@link #readFrom} carry the whole state through a state store.
 */
public final class NcclTransportVerdict {

  /** Lines kept per kind of evidence, so the record stays small on 16-rank logs. */
  private static final int EVIDENCE_PER_KIND = 2;

  private static final int MAX_ERROR_LINES = 10;

  private static final int RANK_DECLARED = 3;
  private static final int RANK_SELECTED = 2;
  private static final int RANK_HINT = 1;

  private String host;
  private String node;
  private String cluster;
  private String job;
  private String commId;
  private String ncclVersion;
  private Instant changedAt;
  private Instant lastSeenAt;

  private String net;
  private int netRank;
  private String netEvidence;

  private final Map<NcclKind, List<String>> gdrFalse = new EnumMap<>(NcclKind.class);
  private final Map<NcclKind, List<String>> gdrTrue = new EnumMap<>(NcclKind.class);
  private final List<String> completionErrors = new ArrayList<>();
  private long completionErrorCount;

  /** The grouping of records into verdicts: host (or node) and job (or, without one, the file). */
  public static String groupKey(NcclLog record) {
    String who = record.getHost() != null ? record.getHost() : record.getNode();
    String what = record.getJob() != null ? "job:" + record.getJob() : "file:" + record.getFile();
    return who + "|" + what;
  }

  /**
   * Folds records into one verdict per {@link #groupKey}, in first-seen order. A group starts at
   * its first record that {@link #carriesSignal carries a signal}, so a bare version banner or
   * application chatter does not make an empty verdict of its own.
   */
  public static Map<String, NcclTransportVerdict> byGroup(Iterable<NcclLog> records) {
    Map<String, NcclTransportVerdict> verdicts = new LinkedHashMap<>();
    for (NcclLog record : records) {
      String key = groupKey(record);
      NcclTransportVerdict verdict = verdicts.get(key);
      if (verdict == null && carriesSignal(record)) {
        verdict = new NcclTransportVerdict();
        verdicts.put(key, verdict);
      }
      if (verdict != null) {
        verdict.add(record);
      }
    }
    return verdicts;
  }

  /**
   * True when the record can change a verdict or raise an alert (a net or gdr statement, a WARN, or
   * an application line reporting an NCCL failure).
   */
  public static boolean carriesSignal(NcclLog record) {
    return switch (kindOf(record)) {
      case USING_NETWORK, GDR_HCA, GDR_GPU_DISTANCE, RING_SUMMARY, NET_IB_USING, WARN, APP_ERROR ->
          true;
      case CHANNEL -> record.getAttrs().containsKey("net");
      case PLUGIN -> "assigned".equals(record.getAttrs().get("event"));
      default -> false;
    };
  }

  /** Folds records that all belong to one group. */
  public static NcclTransportVerdict of(Iterable<NcclLog> records) {
    NcclTransportVerdict verdict = new NcclTransportVerdict();
    records.forEach(verdict::add);
    return verdict;
  }

  /** Adds one record; true when net or gdr changed. */
  public boolean add(NcclLog record) {
    identify(record);
    String before = net;
    Boolean gdrBefore = gdr();
    NcclKind kind = kindOf(record);
    Map<String, String> attrs = record.getAttrs();
    switch (kind) {
      case USING_NETWORK -> netSignal(attrs.get("net"), RANK_DECLARED, record);
      case CHANNEL -> {
        if (attrs.containsKey("net")) {
          netSignal(attrs.get("net"), RANK_DECLARED, record);
          gdrSignal(Boolean.parseBoolean(attrs.get("gdr")), kind, record);
        }
      }
      case PLUGIN -> {
        if ("assigned".equals(attrs.get("event"))) {
          netSignal(attrs.get("plugin"), RANK_SELECTED, record);
        }
      }
      case GDR_HCA -> {
        netSignal(attrs.get("transport"), RANK_SELECTED, record);
        gdrSignal(Boolean.parseBoolean(attrs.get("enabled")), kind, record);
      }
      case GDR_GPU_DISTANCE -> gdrSignal(Boolean.parseBoolean(attrs.get("enabled")), kind, record);
      case RING_SUMMARY -> gdrSignal("1".equals(attrs.get("gdr")), kind, record);
      case NET_IB_USING -> netSignal(attrs.get("net"), RANK_HINT, record);
      case WARN -> {
        if ("completion_error".equals(attrs.get("event"))) {
          netSignal(attrs.get("transport"), RANK_HINT, record);
          completionErrorCount++;
          if (completionErrors.size() < MAX_ERROR_LINES) {
            completionErrors.add(record.getRawLine());
          }
        }
      }
      default -> {}
    }
    boolean changed = !Objects.equals(before, net) || !Objects.equals(gdrBefore, gdr());
    if (changed || changedAt == null) {
      changedAt = record.getTime();
    }
    if (lastSeenAt == null || record.getTime().isAfter(lastSeenAt)) {
      lastSeenAt = record.getTime();
    }
    return changed;
  }

  /** Network in use, or null while the log has not said. */
  public String net() {
    return net;
  }

  /** GPUDirect RDMA in use: true, false, or null when the log does not say. */
  public Boolean gdr() {
    if (!gdrFalse.isEmpty()) {
      return Boolean.FALSE;
    }
    return gdrTrue.isEmpty() ? null : Boolean.TRUE;
  }

  /** The raw lines the verdict rests on: the net line first, then the lines deciding gdr. */
  public List<String> evidence() {
    Set<String> lines = new LinkedHashSet<>();
    if (netEvidence != null) {
      lines.add(netEvidence);
    }
    Boolean gdr = gdr();
    if (gdr != null) {
      (gdr ? gdrTrue : gdrFalse).values().forEach(lines::addAll);
    }
    return new ArrayList<>(lines);
  }

  /** Raw lines of WARN completion errors (the first few). */
  public List<String> completionErrors() {
    return List.copyOf(completionErrors);
  }

  /** Number of WARN completion errors seen. */
  public long completionErrorCount() {
    return completionErrorCount;
  }

  public String host() {
    return host;
  }

  public String job() {
    return job;
  }

  public String commId() {
    return commId;
  }

  public String ncclVersion() {
    return ncclVersion;
  }

  public String cluster() {
    return cluster;
  }

  /** The node whose collector read the log (the host may differ: one job log, many hosts). */
  public String node() {
    return node;
  }

  /** Latest record time seen by this verdict; null before any record. */
  public Instant lastSeenAt() {
    return lastSeenAt;
  }

  /** Time of the last record that changed the verdict (of the first record until then). */
  public Instant changedAt() {
    return changedAt;
  }

  /** The verdict as the record published on fabric.nccl.transport; null before any record. */
  public NcclTransport toRecord() {
    if (changedAt == null) {
      return null;
    }
    return NcclTransport.newBuilder()
        .setCluster(cluster)
        .setNode(node)
        .setHost(host)
        .setJob(job)
        .setCommId(commId)
        .setNcclVersion(ncclVersion)
        .setTime(changedAt)
        .setNet(net)
        .setGdr(gdr())
        .setEvidence(evidence())
        .build();
  }

  private static final byte FORMAT = 1;

  /**
   * Writes the whole state (format version first), e.g. into a state store; see {@link #readFrom}.
   */
  public void writeTo(DataOutput out) throws IOException {
    out.writeByte(FORMAT);
    writeString(out, host);
    writeString(out, node);
    writeString(out, cluster);
    writeString(out, job);
    writeString(out, commId);
    writeString(out, ncclVersion);
    writeInstant(out, changedAt);
    writeInstant(out, lastSeenAt);
    writeString(out, net);
    out.writeInt(netRank);
    writeString(out, netEvidence);
    writeLines(out, gdrFalse);
    writeLines(out, gdrTrue);
    writeList(out, completionErrors);
    out.writeLong(completionErrorCount);
  }

  /** Restores a verdict written by {@link #writeTo}. */
  public static NcclTransportVerdict readFrom(DataInput in) throws IOException {
    byte format = in.readByte();
    if (format != FORMAT) {
      throw new IOException("unknown NCCL verdict format " + format);
    }
    NcclTransportVerdict v = new NcclTransportVerdict();
    v.host = readString(in);
    v.node = readString(in);
    v.cluster = readString(in);
    v.job = readString(in);
    v.commId = readString(in);
    v.ncclVersion = readString(in);
    v.changedAt = readInstant(in);
    v.lastSeenAt = readInstant(in);
    v.net = readString(in);
    v.netRank = in.readInt();
    v.netEvidence = readString(in);
    readLines(in, v.gdrFalse);
    readLines(in, v.gdrTrue);
    v.completionErrors.addAll(readList(in));
    v.completionErrorCount = in.readLong();
    return v;
  }

  private static void writeString(DataOutput out, String s) throws IOException {
    if (s == null) {
      out.writeInt(-1);
      return;
    }
    byte[] bytes = s.getBytes(StandardCharsets.UTF_8);
    out.writeInt(bytes.length);
    out.write(bytes);
  }

  private static String readString(DataInput in) throws IOException {
    int length = in.readInt();
    if (length < 0) {
      return null;
    }
    byte[] bytes = new byte[length];
    in.readFully(bytes);
    return new String(bytes, StandardCharsets.UTF_8);
  }

  private static void writeInstant(DataOutput out, Instant t) throws IOException {
    out.writeBoolean(t != null);
    if (t != null) {
      out.writeLong(t.toEpochMilli());
    }
  }

  private static Instant readInstant(DataInput in) throws IOException {
    return in.readBoolean() ? Instant.ofEpochMilli(in.readLong()) : null;
  }

  private static void writeList(DataOutput out, List<String> lines) throws IOException {
    out.writeInt(lines.size());
    for (String line : lines) {
      writeString(out, line);
    }
  }

  private static List<String> readList(DataInput in) throws IOException {
    int size = in.readInt();
    List<String> lines = new ArrayList<>(size);
    for (int i = 0; i < size; i++) {
      lines.add(readString(in));
    }
    return lines;
  }

  private static void writeLines(DataOutput out, Map<NcclKind, List<String>> byKind)
      throws IOException {
    out.writeInt(byKind.size());
    for (Map.Entry<NcclKind, List<String>> e : byKind.entrySet()) {
      writeString(out, e.getKey().name());
      writeList(out, e.getValue());
    }
  }

  private static void readLines(DataInput in, Map<NcclKind, List<String>> byKind)
      throws IOException {
    int size = in.readInt();
    for (int i = 0; i < size; i++) {
      NcclKind kind = NcclKind.valueOf(readString(in));
      byKind.put(kind, readList(in));
    }
  }

  private void identify(NcclLog record) {
    if (host == null) {
      host = record.getHost() != null ? record.getHost() : record.getNode();
      node = record.getNode();
      cluster = record.getCluster();
      job = record.getJob();
    }
    if (record.getCommId() != null) {
      commId = record.getCommId();
    }
    if (record.getNcclVersion() != null) {
      ncclVersion = record.getNcclVersion();
    }
  }

  private static NcclKind kindOf(NcclLog record) {
    try {
      return record.getKind() == null ? NcclKind.OTHER : NcclKind.valueOf(record.getKind());
    } catch (IllegalArgumentException unknownKind) {
      // A record from a newer parser: its kind means nothing to these rules.
      return NcclKind.OTHER;
    }
  }

  private void netSignal(String name, int rank, NcclLog record) {
    if (name == null || name.isBlank() || rank <= netRank) {
      return;
    }
    net = name;
    netRank = rank;
    netEvidence = record.getRawLine();
  }

  private void gdrSignal(boolean enabled, NcclKind kind, NcclLog record) {
    List<String> lines =
        (enabled ? gdrTrue : gdrFalse).computeIfAbsent(kind, k -> new ArrayList<>());
    if (lines.size() < EVIDENCE_PER_KIND) {
      lines.add(record.getRawLine());
    }
  }
}
