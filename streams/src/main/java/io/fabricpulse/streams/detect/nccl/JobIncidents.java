package io.fabricpulse.streams.detect.nccl;

import io.fabricpulse.avro.Alert;
import io.fabricpulse.avro.AlertKind;
import io.fabricpulse.avro.AlertState;
import io.fabricpulse.streams.alerts.AlertIds;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeSet;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * One GDR_FALLBACK or NET_FALLBACK_SOCKET alert per job (key cluster/job), not one per host: every
 * host of a job misconfigured the same way is one fault (one page). The first host's FIRING opens
 * the job's alert (subject node = that host, job; evidence {@code hosts} grows in the store); it
 * resolves when the last of its hosts resolves, with every host listed. Alerts without a job id and
 * NCCL_ERROR alerts (a failure of one host's connection) pass through unchanged.
 */
final class JobIncidents implements Processor<String, Alert, String, Alert> {

  static final String HOSTS = "hosts";

  private ProcessorContext<String, Alert> context;
  private KeyValueStore<String, Alert> incidents;

  static boolean perJob(Alert a) {
    return a.getJob() != null
        && (a.getKind() == AlertKind.GDR_FALLBACK || a.getKind() == AlertKind.NET_FALLBACK_SOCKET);
  }

  @Override
  public void init(ProcessorContext<String, Alert> context) {
    this.context = context;
    this.incidents = context.getStateStore(NcclTransportDetector.JOB_INCIDENT_STORE);
  }

  @Override
  public void process(Record<String, Alert> record) {
    Alert host = record.value();
    if (host == null) {
      return;
    }
    if (!perJob(host)) {
      context.forward(record.withKey(host.getAlertId()));
      return;
    }
    String key = host.getRule() + "|" + host.getCluster() + "/job=" + host.getJob();
    Alert incident = incidents.get(key);
    TreeSet<String> hosts = new TreeSet<>();
    if (incident != null && incident.getEvidence().get(HOSTS) != null) {
      hosts.addAll(java.util.List.of(incident.getEvidence().get(HOSTS).split(",")));
    }
    if (host.getState() == AlertState.FIRING) {
      hosts.add(host.getNode());
      if (incident == null) {
        incident = jobAlert(host, hosts);
        context.forward(record.withKey(incident.getAlertId()).withValue(incident));
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
    context.forward(record.withKey(resolved.getAlertId()).withValue(resolved));
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
