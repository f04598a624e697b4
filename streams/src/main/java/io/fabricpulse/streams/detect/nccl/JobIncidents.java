package io.fabricpulse.streams.detect.nccl;

import io.fabricpulse.avro.Alert;
import io.fabricpulse.avro.AlertKind;
import io.fabricpulse.avro.AlertState;
import io.fabricpulse.streams.StreamsSettings;
import io.fabricpulse.streams.alerts.AlertIds;
import io.fabricpulse.streams.order.UpstreamWatermark;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * One GDR_FALLBACK or NET_FALLBACK_SOCKET alert per job, not one per host: every host of a job
 * misconfigured the same way is one fault (one page). Keyed by cluster; the host alerts of a job
 * come from several host tasks, so they are judged in event-time order (then rule, job, host) up to
 * the host tasks' low watermark ({@link JobStageProgress}), never in arrival order. The job's
 * FIRING names the first host (earliest, then by name) and lists in evidence {@code hosts} every
 * host that fired at that instant; later hosts join the stored incident; it resolves when the last
 * of its hosts resolves, with every host listed. Alerts without a job id and NCCL_ERROR alerts (a
 * failure of one host's connection) pass through unchanged.
 */
final class JobIncidents implements Processor<String, Alert, String, Alert> {

  static final String HOSTS = "hosts";

  private final int hostTasks;
  private ProcessorContext<String, Alert> context;
  private KeyValueStore<String, Alert> incidents;
  private KeyValueStore<String, Alert> pending;
  private UpstreamWatermark watermark;

  /**
   * {@code hostTasks}: the partitions of the host stage's inputs (its task count when deployed).
   */
  JobIncidents(int hostTasks) {
    this.hostTasks = hostTasks;
  }

  static boolean perJob(Alert a) {
    return a.getJob() != null
        && (a.getKind() == AlertKind.GDR_FALLBACK || a.getKind() == AlertKind.NET_FALLBACK_SOCKET);
  }

  @Override
  public void init(ProcessorContext<String, Alert> context) {
    this.context = context;
    this.incidents = context.getStateStore(NcclTransportDetector.JOB_INCIDENT_STORE);
    this.pending = context.getStateStore(NcclTransportDetector.JOB_PENDING_STORE);
    this.watermark =
        new UpstreamWatermark(
            context.getStateStore(NcclTransportDetector.JOB_PROGRESS_STORE),
            StreamsSettings.tasksOf(context.appConfigs(), hostTasks));
  }

  @Override
  public void process(Record<String, Alert> record) {
    String source = JobStageProgress.sourceOf(record.headers());
    Alert alert = record.value();
    if (alert == null) {
      if (source != null) {
        watermark.advance(source, record.timestamp()); // the task has sent everything up to it
      }
    } else if (source == null || !perJob(alert)) {
      context.forward(
          record
              .withKey(alert.getAlertId())
              .withHeaders(JobStageProgress.withoutSource(record.headers())));
      return;
    } else {
      // more host alerts of this very time may follow from the same task
      watermark.advance(source, record.timestamp() - 1);
      pending.put(pendingKey(record.timestamp(), alert), alert);
    }
    judgeUpTo(watermark.value());
  }

  /** Orders the pending host alerts by time, then rule, job, host and state. */
  private static String pendingKey(long time, Alert a) {
    return String.format(
        "%019d|%s|%s|%s|%d|%s",
        time, a.getRule(), a.getJob(), a.getNode(), a.getState().ordinal(), a.getAlertId());
  }

  private static long timeOf(String pendingKey) {
    return Long.parseLong(pendingKey.substring(0, 19));
  }

  private void judgeUpTo(long upTo) {
    if (upTo == UpstreamWatermark.NONE) {
      return;
    }
    List<KeyValue<String, Alert>> due = new ArrayList<>();
    try (KeyValueIterator<String, Alert> it = pending.all()) {
      while (it.hasNext()) {
        KeyValue<String, Alert> e = it.next();
        if (timeOf(e.key) > upTo) {
          break;
        }
        due.add(e);
      }
    }
    // a job's FIRING goes out once every host alert of its first instant has joined it
    Set<String> opened = new LinkedHashSet<>();
    long instant = Long.MIN_VALUE;
    for (KeyValue<String, Alert> e : due) {
      long time = timeOf(e.key);
      if (time != instant) {
        publish(opened, instant);
        instant = time;
      }
      judge(e.value, time, opened);
      pending.delete(e.key);
    }
    publish(opened, instant);
  }

  private void publish(Set<String> opened, long time) {
    for (String key : opened) {
      Alert incident = incidents.get(key);
      context.forward(new Record<>(incident.getAlertId(), incident, time));
    }
    opened.clear();
  }

  private void judge(Alert host, long time, Set<String> opened) {
    String key = host.getRule() + "|" + host.getCluster() + "/job=" + host.getJob();
    Alert incident = incidents.get(key);
    TreeSet<String> hosts = new TreeSet<>();
    if (incident != null && incident.getEvidence().get(HOSTS) != null) {
      hosts.addAll(List.of(incident.getEvidence().get(HOSTS).split(",")));
    }
    if (host.getState() == AlertState.FIRING) {
      hosts.add(host.getNode());
      if (incident == null) {
        incident = jobAlert(host, hosts);
        opened.add(key);
      } else {
        incident = withHosts(incident, hosts);
      }
      incidents.put(key, incident);
      return;
    }
    if (incident == null) {
      return; // a RESOLVED of a host whose job incident is already closed
    }
    hosts.remove(host.getNode());
    if (!hosts.isEmpty()) {
      incidents.put(key, withHosts(incident, hosts));
      return;
    }
    if (opened.remove(key)) {
      context.forward(new Record<>(incident.getAlertId(), incident, time));
    }
    incidents.delete(key);
    Alert resolved =
        Alert.newBuilder(incident)
            .setState(AlertState.RESOLVED)
            .setResolvedAt(host.getResolvedAt())
            .setSummary(host.getSummary())
            .setSourceTopic(host.getSourceTopic())
            .setSourcePartition(host.getSourcePartition())
            .setSourceOffset(host.getSourceOffset())
            .build();
    context.forward(new Record<>(resolved.getAlertId(), resolved, time));
  }

  private static Alert jobAlert(Alert host, TreeSet<String> hosts) {
    String subject = host.getCluster() + "/job=" + host.getJob();
    Alert incident =
        Alert.newBuilder(host)
            .setAlertId(AlertIds.of(host.getRule(), subject, host.getStartedAt().toEpochMilli()))
            .build();
    return withHosts(incident, hosts);
  }

  private static Alert withHosts(Alert incident, TreeSet<String> hosts) {
    Map<String, String> evidence = new LinkedHashMap<>(incident.getEvidence());
    evidence.put(HOSTS, String.join(",", hosts));
    return Alert.newBuilder(incident).setEvidence(evidence).build();
  }
}
