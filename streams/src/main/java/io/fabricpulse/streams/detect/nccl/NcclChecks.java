package io.fabricpulse.streams.detect.nccl;

import io.fabricpulse.avro.AlertKind;
import io.fabricpulse.avro.NcclLog;
import io.fabricpulse.schemas.nccl.NcclFailureClass;
import io.fabricpulse.schemas.nccl.NcclFailures;
import io.fabricpulse.schemas.nccl.NcclKind;
import io.fabricpulse.schemas.nccl.NcclTransportVerdict;
import io.fabricpulse.streams.alerts.AlertSubject;
import io.fabricpulse.streams.alerts.Lineage;
import io.fabricpulse.streams.alerts.Message;
import io.fabricpulse.streams.alerts.Observation;
import io.fabricpulse.streams.rules.Detector;
import io.fabricpulse.streams.rules.Rule;
import io.fabricpulse.streams.rules.RuleSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The three NCCL conditions (docs/thresholds.md G1, G2 and the fatal failures of docs/formats.md,
 * NCCL logs), each judged by the {@link DecidingRule} of the verdict's host. Pure: verdict, ports
 * and record in, an observation for that rule's tracker out.
 */
final class NcclChecks {

  /** An observation and the rule whose tracker takes it. */
  record Judged(Rule rule, Observation observation) {}

  private final List<Rule> gdrRules;
  private final List<Rule> socketRules;
  private final List<Rule> errorRules;

  NcclChecks(RuleSet rules) {
    this.gdrRules = rules.enabledFor(Detector.GDR_FALLBACK);
    this.socketRules = rules.enabledFor(Detector.NET_FALLBACK_SOCKET);
    this.errorRules = rules.enabledFor(Detector.NCCL_ERROR);
  }

  /** The link_window of every nccl_error rule, by rule id ({@link NodeLinkAlerts}). */
  Map<String, Long> linkWindows() {
    Map<String, Long> windows = new LinkedHashMap<>();
    for (Rule rule : errorRules) {
      windows.put(rule.id(), rule.thresholds().duration("link_window").toMillis());
    }
    return windows;
  }

  List<Rule> allRules() {
    return java.util.stream.Stream.of(gdrRules, socketRules, errorRules)
        .flatMap(List::stream)
        .toList();
  }

  /** IB, or a net plugin built from NCCL's IB code that prints its own name (IBext, IBext_v8). */
  static boolean isIb(String net) {
    return net != null && net.startsWith("IB");
  }

  static AlertSubject subject(NcclTransportVerdict v) {
    return AlertSubject.node(v.cluster(), v.host()).withJob(v.job());
  }

  /** G1: IB in use but GPUDirect RDMA is not, where the rule expects GDR. */
  Optional<Judged> gdrFallback(NcclTransportVerdict v, long time, Lineage lineage) {
    return DecidingRule.forNode(gdrRules, v.cluster(), v.host())
        .map(
            rule -> {
              AlertSubject subject = subject(v);
              boolean holds =
                  rule.thresholds().flag("expect_gdr")
                      && isIb(v.net())
                      && Boolean.FALSE.equals(v.gdr());
              if (!holds) {
                return new Judged(rule, Observation.clean(subject, time, lineage));
              }
              Map<String, String> evidence = verdictEvidence(v);
              Message summary =
                  Message.of(
                      "gdr_fallback.firing", subject.shortName(), v.net(), reason(v.evidence()));
              return new Judged(
                  rule,
                  Observation.holds(subject, time, 0, 1, "gdr", summary, evidence, lineage)
                      .withKind(AlertKind.GDR_FALLBACK)
                      .firingNow());
            });
  }

  /**
   * G2: NCCL on sockets where the rule expects IB, or (any rule) where the node's port records show
   * an ACTIVE IB/RoCE port.
   */
  Optional<Judged> socketFallback(
      NcclTransportVerdict v, NodePorts ports, long time, Lineage lineage) {
    return DecidingRule.forNode(socketRules, v.cluster(), v.host())
        .map(
            rule -> {
              AlertSubject subject = subject(v);
              String expect = rule.thresholds().choice("expect_net");
              List<String> active = ports == null ? List.of() : ports.activePorts();
              boolean socket = "Socket".equals(v.net());
              boolean expected = "IB".equals(expect) || ("any".equals(expect) && !active.isEmpty());
              if (!socket || !expected) {
                return new Judged(rule, Observation.clean(subject, time, lineage));
              }
              Map<String, String> evidence = verdictEvidence(v);
              evidence.put("active_rdma_ports", String.join(",", active));
              evidence.put("expect_net", expect);
              String why =
                  active.isEmpty()
                      ? "rule " + rule.id() + " expects IB"
                      : "ports " + String.join(",", active) + " are ACTIVE";
              Message summary = Message.of("net_fallback_socket.firing", subject.shortName(), why);
              return new Judged(
                  rule,
                  Observation.holds(
                          subject,
                          time,
                          active.size(),
                          1,
                          "active_rdma_ports",
                          summary,
                          evidence,
                          lineage)
                      .withKind(AlertKind.NET_FALLBACK_SOCKET)
                      .firingNow());
            });
  }

  /** Longest message text quoted in a summary; the whole line is in evidence {@code line}. */
  static final int SUMMARY_TEXT_MAX = 200;

  /**
   * A line reporting a fatal NCCL failure ({@link NcclFailures}: a WARN of a failure class, or an
   * application line such as a PyTorch watchdog timeout): fires at once, with the failure class;
   * the node's link alerts are attached when it is sent ({@link NodeLinkAlerts}). Empty when the
   * record reports no failure or no rule applies.
   */
  Optional<Judged> failure(NcclLog line, NcclTransportVerdict v, Lineage lineage) {
    Optional<NcclFailureClass> failure = NcclFailures.of(line);
    if (failure.isEmpty()) {
      return Optional.empty();
    }
    NcclFailureClass failureClass = failure.get();
    Map<String, String> attrs = line.getAttrs();
    boolean completion = "completion_error".equals(attrs.get("event"));
    return DecidingRule.forNode(errorRules, v.cluster(), v.host())
        .map(
            rule -> {
              long time = line.getTime().toEpochMilli();
              AlertSubject subject = subject(v);
              Map<String, String> evidence = new LinkedHashMap<>();
              evidence.put("failure", failureClass.id());
              evidence.put("line", line.getRawLine());
              evidence.put(
                  "origin",
                  NcclKind.APP_ERROR.name().equals(line.getKind()) ? "application" : "nccl_warn");
              for (String key :
                  List.of(
                      "src",
                      "transport",
                      "peer",
                      "status",
                      "status_name",
                      "opcode",
                      "vendor_err",
                      "request",
                      "hca")) {
                if (attrs.get(key) != null) {
                  evidence.put(key, attrs.get(key));
                }
              }
              if (completion) {
                evidence.put("completion_errors", Long.toString(v.completionErrorCount()));
              }
              putIdentity(evidence, v);
              // the node's link alerts, if any, are appended when it is sent (NodeLinkAlerts)
              String near = "";
              Message summary =
                  completion
                      ? Message.of(
                          "nccl_error.firing",
                          subject.shortName(),
                          attrs.getOrDefault("peer", "?"),
                          attrs.getOrDefault("status", "?"),
                          attrs.getOrDefault("vendor_err", "?"),
                          near)
                      : Message.of(
                          "nccl_error.failure",
                          subject.shortName(),
                          failureClass.description(),
                          shortened(line.getMessage()),
                          near);
              return new Judged(
                  rule,
                  Observation.holds(
                          subject,
                          time,
                          completion ? v.completionErrorCount() : 1,
                          1,
                          "errors",
                          summary,
                          evidence,
                          lineage)
                      .withKind(AlertKind.NCCL_ERROR)
                      .firingNow());
            });
  }

  private static String shortened(String text) {
    String t = text.strip();
    return t.length() <= SUMMARY_TEXT_MAX ? t : t.substring(0, SUMMARY_TEXT_MAX - 3) + "...";
  }

  private static Map<String, String> verdictEvidence(NcclTransportVerdict v) {
    Map<String, String> evidence = new LinkedHashMap<>();
    evidence.put("net", String.valueOf(v.net()));
    evidence.put("gdr", String.valueOf(v.gdr()));
    List<String> lines = v.evidence();
    for (int i = 0; i < lines.size(); i++) {
      evidence.put("line." + (i + 1), lines.get(i));
    }
    putIdentity(evidence, v);
    return evidence;
  }

  private static void putIdentity(Map<String, String> evidence, NcclTransportVerdict v) {
    if (v.ncclVersion() != null) {
      evidence.put("nccl_version", v.ncclVersion());
    }
    if (v.commId() != null) {
      evidence.put("comm_id", v.commId());
    }
    evidence.put("collected_on", v.node());
  }

  /** The message of the last line deciding gdr, without the NCCL prefix. */
  static String reason(List<String> evidence) {
    if (evidence.isEmpty()) {
      return "the log does not say why";
    }
    String line = evidence.get(evidence.size() - 1);
    int at = line.indexOf("NCCL INFO ");
    return at < 0 ? line.strip() : line.substring(at + "NCCL INFO ".length()).strip();
  }
}
