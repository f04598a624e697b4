package io.fabricpulse.bridges.render;

import io.fabricpulse.avro.Alert;
import io.fabricpulse.avro.AlertKind;
import io.fabricpulse.avro.AlertState;
import io.fabricpulse.bridges.config.BridgeConfig.Language;
import io.fabricpulse.bridges.config.Person;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The message templates, in Chinese or English: one detailed message per alert, and a digest (one
 * line per alert under a summary) when several are posted together. Only the markdown both robots
 * render is used: headings, bold, links and plain lines (WeCom's subset:
 * https://developer.work.weixin.qq.com/document/path/91770 ; DingTalk's:
 * https://open.dingtalk.com/document/robots/custom-robot-access).
 */
public final class MessageRenderer {
  /** Kinds named in a digest's summary before "+N more". */
  static final int SUMMARY_KINDS = 4;

  /** Node ranges named per kind in a digest's summary. */
  static final int SUMMARY_RANGES = 3;

  /** The alert label the topology join sets for a host port: the switch port at the other end. */
  public static final String PEER_LABEL = "peer";

  private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss");

  private final Language language;
  private final ZoneId zone;
  private final String grafanaUrl;
  private final MessageTemplates templates;

  public MessageRenderer(Language language, ZoneId zone, String grafanaUrl) {
    this(language, zone, grafanaUrl, null);
  }

  /**
   * @param templates the templates that replace built-in ones, or null for the built-in ones
   */
  public MessageRenderer(
      Language language, ZoneId zone, String grafanaUrl, MessageTemplates templates) {
    this.language = language;
    this.zone = zone;
    this.grafanaUrl = grafanaUrl;
    this.templates = templates;
  }

  /** The detailed message of one alert state change. */
  public Message single(Alert a, Set<Person> mentions) {
    String title = title(a);
    List<String> template =
        templates == null
            ? null
            : a.getState() == AlertState.RESOLVED ? templates.resolved() : templates.firing();
    if (template != null) {
      Map<String, String> values = values(a);
      List<String> lines = new ArrayList<>();
      for (String line : template) {
        String filled = MessageTemplates.fill(line, values, true);
        if (filled != null) {
          lines.add(filled);
        }
      }
      return new Message(title, List.copyOf(lines), mentions, 1);
    }
    List<String> lines = new ArrayList<>();
    lines.add("### " + title);
    lines.add(bold(zh() ? "对象" : "Subject") + sep() + subject(a) + clusterSuffix(a));
    String peer = peer(a);
    if (peer != null) {
      lines.add(bold(zh() ? "对端" : "Peer") + sep() + peer);
    }
    if (a.getState() == AlertState.RESOLVED) {
      lines.add(bold(zh() ? "原告警" : "Page") + sep() + a.getSummary());
      lines.add(
          bold(zh() ? "持续" : "Lasted")
              + sep()
              + duration(a)
              + (zh() ? "（开始 " : " (started ")
              + time(a.getStartedAt())
              + (zh() ? "，恢复 " : ", resolved ")
              + time(a.getResolvedAt())
              + (zh() ? "）" : ")"));
    } else {
      lines.add(bold(zh() ? "摘要" : "Summary") + sep() + a.getSummary());
      String value = valueText(a);
      if (value != null) {
        lines.add(bold(zh() ? "数值" : "Value") + sep() + value);
      }
      lines.add(
          bold(zh() ? "开始" : "Started")
              + sep()
              + time(a.getStartedAt())
              + " ("
              + zone.getId()
              + ")");
    }
    links(a).ifPresentOrElse(lines::add, () -> {});
    return new Message(title, List.copyOf(lines), mentions, 1);
  }

  /** The summary line of a digest of {@code alerts} (the ones in this message). */
  public String digestTitle(List<Alert> alerts) {
    long firing = alerts.stream().filter(a -> a.getState() == AlertState.FIRING).count();
    long resolved = alerts.size() - firing;
    StringBuilder s = new StringBuilder();
    if (zh()) {
      s.append(alerts.size()).append(" 条告警");
      if (resolved > 0) {
        s.append("（").append(firing).append(" 条触发，").append(resolved).append(" 条恢复）");
      }
    } else {
      s.append(alerts.size()).append(firing == alerts.size() ? " new alerts" : " alerts");
      if (resolved > 0) {
        s.append(" (").append(firing).append(" firing, ").append(resolved).append(" resolved)");
      }
    }
    return s.toString();
  }

  /**
   * What the digest holds, by kind, most frequent first: "9 PAUSE_STORM on gpu001-gpu009 (victims
   * of gpu007 ens9f0np0 prio 3), 2 LINK_FLAP on gpu003, gpu011, +2 more".
   */
  public String digestSummary(List<Alert> alerts) {
    Map<AlertKind, List<Alert>> byKind = new LinkedHashMap<>();
    alerts.forEach(a -> byKind.computeIfAbsent(a.getKind(), k -> new ArrayList<>()).add(a));
    List<Map.Entry<AlertKind, List<Alert>>> kinds = new ArrayList<>(byKind.entrySet());
    kinds.sort((x, y) -> Integer.compare(y.getValue().size(), x.getValue().size()));
    List<String> parts = new ArrayList<>();
    for (int i = 0; i < kinds.size() && i < SUMMARY_KINDS; i++) {
      AlertKind kind = kinds.get(i).getKey();
      List<Alert> group = kinds.get(i).getValue();
      StringBuilder part = new StringBuilder().append(group.size()).append(' ').append(kind);
      List<String> nodes =
          group.stream().map(Alert::getNode).filter(n -> n != null).distinct().toList();
      if (!nodes.isEmpty()) {
        List<String> ranges = NodeRanges.fold(nodes);
        part.append(zh() ? "，节点 " : " on ")
            .append(String.join(", ", ranges.subList(0, Math.min(SUMMARY_RANGES, ranges.size()))));
        if (ranges.size() > SUMMARY_RANGES) {
          part.append(" +").append(ranges.size() - SUMMARY_RANGES);
        }
      }
      String origins = originsOf(group, alerts);
      if (origins != null) {
        part.append(zh() ? "（受害方，源头 " : " (victims of ").append(origins).append(zh() ? "）" : ")");
      }
      parts.add(part.toString());
    }
    if (kinds.size() > SUMMARY_KINDS) {
      int more =
          kinds.subList(SUMMARY_KINDS, kinds.size()).stream()
              .mapToInt(e -> e.getValue().size())
              .sum();
      parts.add(zh() ? "其余 " + more + " 条" : "+" + more + " more");
    }
    return String.join(zh() ? "；" : ", ", parts);
  }

  /**
   * The lines of a digest under its title and summary: one line per incident (both ends of one
   * cable in one line) or alert, and the lines of each switch under a heading naming it ({@link
   * DigestGroups}). With a custom digest template, every alert has its own line.
   */
  public List<String> digestLines(List<Alert> alerts) {
    List<String> lines = new ArrayList<>();
    for (DigestGroups.Group g : DigestGroups.groups(DigestGroups.entries(alerts))) {
      if (g.switchName() != null) {
        int count = g.entries().stream().mapToInt(e -> e.alerts().size()).sum();
        lines.add(
            bold(g.switchName())
                + (zh()
                    ? "（交换机，" + count + " 条告警）"
                    : " (switch, " + count + (count == 1 ? " alert)" : " alerts)")));
      }
      for (DigestGroups.Entry e : g.entries()) {
        lines.addAll(entryLines(e));
      }
    }
    return lines;
  }

  private List<String> entryLines(DigestGroups.Entry e) {
    boolean custom =
        templates != null
            && (templates.digestFiring() != null || templates.digestResolved() != null);
    if (e.alerts().size() == 1 || custom) {
      return e.alerts().stream().map(this::digestLine).toList();
    }
    return List.of(incidentLine(e.alerts()));
  }

  /**
   * One line for the alerts of one incident, naming both ends: "- [WARNING] LINK_FLAP **gpu007
   * mlx5_3/1 <-> leaf-07 port 12** on both ends, since 19:30:00".
   */
  private String incidentLine(List<Alert> members) {
    List<Alert> ordered = new ArrayList<>(members);
    ordered.sort(
        java.util.Comparator.comparing((Alert a) -> DigestGroups.isSwitchPort(a))
            .thenComparing(this::endName));
    Alert first = ordered.get(0);
    List<String> ends = ordered.stream().map(this::endName).distinct().toList();
    String names = String.join(" <-> ", ends);
    if (ends.size() == 1 && peer(first) != null) {
      names += " <-> " + peer(first);
    }
    Alert worst = first;
    for (Alert a : ordered) {
      if (a.getSeverity().ordinal() > worst.getSeverity().ordinal()) {
        worst = a;
      }
    }
    StringBuilder s = new StringBuilder("- ");
    s.append(severityTag(worst)).append(zh() ? "" : " ").append(first.getKind()).append(' ');
    s.append(bold(names));
    s.append(
        zh() ? "（两端，" + ordered.size() + " 条）" : " on both ends (" + ordered.size() + " alerts)");
    if (first.getState() == AlertState.RESOLVED) {
      Alert longest = first;
      for (Alert a : ordered) {
        if (a.getResolvedAt() != null
            && (longest.getResolvedAt() == null
                || Duration.between(a.getStartedAt(), a.getResolvedAt())
                        .compareTo(
                            Duration.between(longest.getStartedAt(), longest.getResolvedAt()))
                    > 0)) {
          longest = a;
        }
      }
      s.append(zh() ? " 已恢复，持续 " : " resolved after ").append(duration(longest));
    } else {
      List<String> values = ordered.stream().map(this::valueText).filter(v -> v != null).toList();
      if (!values.isEmpty()) {
        s.append(' ').append(String.join("; ", values));
      }
      Instant since =
          ordered.stream().map(Alert::getStartedAt).min(Instant::compareTo).orElseThrow();
      s.append(zh() ? "，开始 " : ", since ").append(shortTime(since));
    }
    return s.toString();
  }

  /**
   * An alert's port as a digest line names it: a switch port as the topology join names it ({@code
   * leaf-07 port 12}), anything else by its subject.
   */
  private String endName(Alert a) {
    return DigestGroups.isSwitchPort(a) ? a.getNode() + " port " + a.getPort() : subject(a);
  }

  /** The one line of an alert in a digest. */
  public String digestLine(Alert a) {
    String template =
        templates == null
            ? null
            : a.getState() == AlertState.RESOLVED
                ? templates.digestResolved()
                : templates.digestFiring();
    if (template != null) {
      return MessageTemplates.fill(template, values(a), false);
    }
    StringBuilder s = new StringBuilder("- ");
    s.append(severityTag(a)).append(zh() ? "" : " ").append(a.getKind()).append(' ');
    s.append(bold(endName(a)));
    String peer = peer(a);
    if (peer != null) {
      s.append(zh() ? "（对端 " + peer + "）" : " (peer " + peer + ")");
    }
    if (a.getState() == AlertState.RESOLVED) {
      s.append(zh() ? " 已恢复，持续 " : " resolved after ").append(duration(a));
    } else {
      String value = valueText(a);
      if (value != null) {
        s.append(' ').append(value);
      }
      s.append(zh() ? "，开始 " : ", since ").append(shortTime(a.getStartedAt()));
    }
    return s.toString();
  }

  /** What each placeholder of {@link MessageTemplates} stands for; absent ones are not in it. */
  Map<String, String> values(Alert a) {
    Map<String, String> v = new java.util.HashMap<>();
    v.put("title", title(a));
    v.put("severity", severityTag(a));
    v.put("kind", a.getKind().name());
    v.put("state", a.getState().name());
    v.put("cluster", a.getCluster());
    if (a.getNode() != null) {
      v.put("node", a.getNode());
    }
    v.put("subject", subject(a));
    if (peer(a) != null) {
      v.put("peer", peer(a));
    }
    v.put("summary", a.getSummary());
    if (valueText(a) != null) {
      v.put("value", valueText(a));
    }
    if (a.getStartedAt() != null) {
      v.put("started", time(a.getStartedAt()));
      v.put("since", shortTime(a.getStartedAt()));
    }
    if (a.getResolvedAt() != null) {
      v.put("resolved", time(a.getResolvedAt()));
      v.put("lasted", duration(a));
    }
    v.put("zone", zone.getId());
    links(a).ifPresent(l -> v.put("links", l));
    if (a.getLabels() != null) {
      a.getLabels().forEach((k, value) -> v.put(MessageTemplates.LABEL_PREFIX + k, value));
    }
    return v;
  }

  /** Severity and state as the title says them: "[CRITICAL] PAUSE_STORM firing". */
  String title(Alert a) {
    boolean resolved = a.getState() == AlertState.RESOLVED;
    if (zh()) {
      return (resolved ? "【恢复】" : severityTag(a)) + a.getKind() + (resolved ? " 已恢复" : " 告警");
    }
    return (resolved ? "[RESOLVED] " : severityTag(a) + " ")
        + a.getKind()
        + (resolved ? " resolved" : " firing");
  }

  private String severityTag(Alert a) {
    if (a.getState() == AlertState.RESOLVED) {
      return zh() ? "【恢复】" : "[RESOLVED]";
    }
    return switch (a.getSeverity()) {
      case CRITICAL -> zh() ? "【严重】" : "[CRITICAL]";
      case WARNING -> zh() ? "【警告】" : "[WARNING]";
      case INFO -> zh() ? "【提示】" : "[INFO]";
    };
  }

  /** node, device, port, priority, GPU and job, whichever the alert has. */
  public String subject(Alert a) {
    List<String> parts = new ArrayList<>();
    if (a.getNode() != null) {
      parts.add(a.getNode());
    }
    if (a.getDevice() != null) {
      parts.add(a.getDevice() + (a.getPort() != null ? "/" + a.getPort() : ""));
    } else if (a.getPort() != null) {
      parts.add((zh() ? "端口 " : "port ") + a.getPort());
    }
    if (a.getNetdev() != null) {
      parts.add(a.getNetdev());
    }
    if (a.getPriority() != null) {
      parts.add((zh() ? "优先级 " : "prio ") + a.getPriority());
    }
    if (a.getGpu() != null) {
      parts.add("GPU " + a.getGpu());
    }
    if (a.getJob() != null) {
      parts.add((zh() ? "作业 " : "job ") + a.getJob());
    }
    return parts.isEmpty() ? a.getCluster() : String.join(" ", parts);
  }

  /**
   * The switch port at the other end of the alert's port, as the topology join labels it ({@code
   * peer}, e.g. "leaf-07 port 12"), or null when the topology is not known.
   */
  public static String peer(Alert a) {
    String peer = a.getLabels() == null ? null : a.getLabels().get(PEER_LABEL);
    return peer == null || peer.isBlank() ? null : peer;
  }

  private String clusterSuffix(Alert a) {
    return zh() ? "（集群 " + a.getCluster() + "）" : " (cluster " + a.getCluster() + ")";
  }

  private String valueText(Alert a) {
    if (a.getValue() == null) {
      return null;
    }
    String unit = a.getUnit() == null ? "" : " " + a.getUnit();
    String text = number(a.getValue()) + unit;
    if (a.getThreshold() != null) {
      text +=
          zh()
              ? "（阈值 " + number(a.getThreshold()) + unit + "）"
              : " (threshold " + number(a.getThreshold()) + unit + ")";
    }
    return text;
  }

  private java.util.Optional<String> links(Alert a) {
    List<String> links = new ArrayList<>();
    String runbook = a.getLabels().get("runbook");
    if (runbook != null) {
      links.add(
          runbook.startsWith("http")
              ? "[" + (zh() ? "处置手册" : "Runbook") + "](" + runbook + ")"
              : (zh() ? "处置手册：" : "Runbook: ") + runbook);
    }
    if (grafanaUrl != null) {
      String sep = grafanaUrl.contains("?") ? "&" : "?";
      String url = grafanaUrl + sep + "var-cluster=" + urlPart(a.getCluster());
      if (a.getNode() != null) {
        url += "&var-node=" + urlPart(a.getNode());
      }
      links.add("[Grafana](" + url + ")");
    }
    return links.isEmpty()
        ? java.util.Optional.empty()
        : java.util.Optional.of(String.join(" · ", links));
  }

  private static String urlPart(String s) {
    return java.net.URLEncoder.encode(s, java.nio.charset.StandardCharsets.UTF_8);
  }

  /** The origins a PAUSE_PROPAGATION alert in the digest names for these storms, or null. */
  private static String originsOf(List<Alert> storms, List<Alert> all) {
    if (storms.get(0).getKind() != AlertKind.PAUSE_STORM) {
      return null;
    }
    for (Alert p : all) {
      if (p.getKind() != AlertKind.PAUSE_PROPAGATION) {
        continue;
      }
      Set<String> ids =
          Arrays.stream(p.getEvidence().getOrDefault("storm_alert_ids", "").split(",\\s*"))
              .collect(Collectors.toSet());
      String origins = p.getEvidence().get("origins");
      if (origins != null
          && !origins.isEmpty()
          && storms.stream().anyMatch(s -> ids.contains(s.getAlertId()))) {
        return origins;
      }
    }
    return null;
  }

  private String time(Instant t) {
    return t == null ? "?" : TIME.format(t.atZone(zone));
  }

  private String shortTime(Instant t) {
    return DateTimeFormatter.ofPattern("HH:mm:ss").format(t.atZone(zone));
  }

  private static String duration(Alert a) {
    if (a.getResolvedAt() == null) {
      return "?";
    }
    Duration d = Duration.between(a.getStartedAt(), a.getResolvedAt());
    if (d.isNegative()) {
      d = Duration.ZERO;
    }
    long h = d.toHours();
    int m = d.toMinutesPart();
    int s = d.toSecondsPart();
    return h > 0 ? h + "h" + m + "m" : m > 0 ? m + "m" + s + "s" : s + "s";
  }

  private static String number(double v) {
    if (v == Math.rint(v) && Math.abs(v) < 1e15) {
      return Long.toString((long) v);
    }
    // three significant digits, without trailing zeros: 0.42, 0.1, 1.23e+3 as 1230
    return new java.math.BigDecimal(v)
        .round(new java.math.MathContext(3))
        .stripTrailingZeros()
        .toPlainString();
  }

  private static String bold(String s) {
    return "**" + s + "**";
  }

  private String sep() {
    return zh() ? "：" : ": ";
  }

  private boolean zh() {
    return language == Language.ZH;
  }
}
