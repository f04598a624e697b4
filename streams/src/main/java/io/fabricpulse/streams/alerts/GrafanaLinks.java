package io.fabricpulse.streams.alerts;

import io.fabricpulse.avro.Alert;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.kafka.streams.processor.api.FixedKeyProcessor;
import org.apache.kafka.streams.processor.api.FixedKeyProcessorContext;
import org.apache.kafka.streams.processor.api.FixedKeyRecord;

/**
 * Adds label {@value #LABEL} to every alert when the application config sets {@value #BASE_URL}:
 * the provisioned dashboard of the alert's family (dashboards/), its time range around the alert
 * and the alert's cluster and node as template variables, so a page links straight to the graphs.
 * Without the setting alerts pass unchanged.
 */
public final class GrafanaLinks implements FixedKeyProcessor<String, Alert, Alert> {

  /** Application config key: Grafana's base URL, e.g. {@code https://grafana.example.com}. */
  public static final String BASE_URL = "fabricpulse.grafana.url";

  public static final String LABEL = "grafana_url";

  /** Shown before the alert started and after it resolved (or started, while firing). */
  static final Duration MARGIN = Duration.ofMinutes(15);

  private FixedKeyProcessorContext<String, Alert> context;
  private String base;

  @Override
  public void init(FixedKeyProcessorContext<String, Alert> context) {
    this.context = context;
    Object configured = context.appConfigs().get(BASE_URL);
    this.base =
        configured == null || configured.toString().isBlank() ? null : configured.toString();
  }

  @Override
  public void process(FixedKeyRecord<String, Alert> record) {
    Alert alert = record.value();
    if (base == null || alert == null) {
      context.forward(record);
      return;
    }
    Map<String, String> labels = new LinkedHashMap<>(alert.getLabels());
    labels.put(LABEL, link(base, alert));
    context.forward(record.withValue(Alert.newBuilder(alert).setLabels(labels).build()));
  }

  /** The dashboard link of {@code alert} under Grafana's {@code base} URL. */
  static String link(String base, Alert alert) {
    long from = alert.getStartedAt().minus(MARGIN).toEpochMilli();
    long to =
        (alert.getResolvedAt() != null ? alert.getResolvedAt() : alert.getStartedAt())
            .plus(MARGIN)
            .toEpochMilli();
    StringBuilder url =
        new StringBuilder(base.replaceAll("/+$", ""))
            .append("/d/")
            .append(dashboard(alert))
            .append("?from=")
            .append(from)
            .append("&to=")
            .append(to)
            .append("&var-cluster=")
            .append(encode(alert.getCluster()));
    if (alert.getNode() != null) {
      // the switch dashboard's variable is the switch (a switch port alert's node)
      url.append(SWITCH_DASHBOARD.equals(dashboard(alert)) ? "&var-switch=" : "&var-node=")
          .append(encode(alert.getNode()));
    }
    return url.toString();
  }

  /** dashboards/switch-isl.json: switch ports, ISLs and host links. */
  static final String SWITCH_DASHBOARD = "fabricpulse-switch-isl";

  /** The uid of the dashboard (dashboards/*.json) that shows an alert of this kind. */
  static String dashboard(Alert alert) {
    return switch (alert.getKind()) {
      case PAUSE_STORM,
          PAUSE_PROPAGATION,
          PFC_MISCONFIG,
          ECN_MISCONFIG,
          ECN_NOT_EFFECTIVE,
          LOSSLESS_DROP ->
          "fabricpulse-pfc-ecn";
      case LINK_FLAP,
          LINK_DOWN,
          LINK_DEGRADED,
          PHY_ERRORS,
          MTU_MISMATCH,
          SM_FAILOVER,
          SM_ABSENT,
          SM_HUNG,
          SM_UNSTABLE,
          IBDIAGNET_FINDING ->
          "fabricpulse-link-health";
      case XMIT_WAIT, LINK_BELOW_CAPABILITY -> SWITCH_DASHBOARD;
      case GPU_ECC_UNCORRECTABLE,
          GPU_ROW_REMAP_FAILURE,
          GPU_RETIRED_PAGES,
          GPU_RESET_REQUIRED,
          GPU_ECC_AGING,
          GPU_XID,
          GPU_HOT ->
          "fabricpulse-gpu";
      case GDR_FALLBACK, NET_FALLBACK_SOCKET, NCCL_ERROR -> "fabricpulse-nccl";
      case COLLECTOR_SILENT, UNKNOWN -> "fabricpulse-overview";
    };
  }

  private static String encode(String value) {
    return URLEncoder.encode(value, StandardCharsets.UTF_8);
  }
}
