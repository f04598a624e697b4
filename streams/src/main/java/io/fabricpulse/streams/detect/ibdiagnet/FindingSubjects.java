package io.fabricpulse.streams.detect.ibdiagnet;

import io.fabricpulse.avro.FabricFinding;
import io.fabricpulse.streams.alerts.AlertSubject;

/**
 * The alert subject of a finding: node = the node GUID ibdiagnet printed ({@code
 * S<guid>/N<guid>/P20}) or the first word of its name ({@code gpu007} of {@code gpu007/mlx5_3/P1}),
 * device = the name as printed, port = the port label when it is a number. A line that names
 * nothing is about the collector's run as a whole (node = the collector).
 */
final class FindingSubjects {
  private FindingSubjects() {}

  /** The node a finding names; {@code observedBy} when it names none. */
  static String node(FabricFinding f, String observedBy) {
    if (f.getSubjectGuid() != null) {
      return f.getSubjectGuid();
    }
    if (f.getSubject() != null && !f.getSubject().isBlank()) {
      int slash = f.getSubject().indexOf('/');
      return slash > 0 ? f.getSubject().substring(0, slash) : f.getSubject();
    }
    return observedBy;
  }

  static AlertSubject of(String cluster, String observedBy, FabricFinding f) {
    AlertSubject subject = AlertSubject.node(cluster, node(f, observedBy));
    if (f.getSubject() == null) {
      return subject;
    }
    subject = subject.withDevice(f.getSubject());
    String port = f.getSubjectPort();
    if (port != null && port.matches("\\d{1,3}")) {
      subject = subject.withPort(Integer.parseInt(port));
    }
    return subject;
  }

  /** The subject as one line of the reported store: node, device, port separated by tabs. */
  static String encode(AlertSubject s) {
    return s.node()
        + "\t"
        + (s.device() == null ? "" : s.device())
        + "\t"
        + (s.port() == null ? "" : s.port());
  }

  static AlertSubject decode(String cluster, String line) {
    String[] parts = line.split("\t", -1);
    AlertSubject subject = AlertSubject.node(cluster, parts[0]);
    if (!parts[1].isEmpty()) {
      subject = subject.withDevice(parts[1]);
    }
    if (!parts[2].isEmpty()) {
      subject = subject.withPort(Integer.parseInt(parts[2]));
    }
    return subject;
  }
}
