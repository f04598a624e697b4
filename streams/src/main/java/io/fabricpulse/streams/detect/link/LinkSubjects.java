package io.fabricpulse.streams.detect.link;

import io.fabricpulse.streams.alerts.AlertSubject;

/** The alert subject of a port: cluster, node, device and port. */
final class LinkSubjects {

  private LinkSubjects() {}

  static AlertSubject of(PortLinkState st) {
    return AlertSubject.node(st.cluster, st.node).withDevice(st.device).withPort(st.port);
  }
}
