package io.fabricpulse.streams.detect.sm;

import java.util.Objects;

/**
 * What we know of a subnet manager master: sminfo gives its port GUID and LID [SMINFO], the OpenSM
 * log gives the host that logged {@code Entering MASTER state} [OSM-sm]. Any part may be unknown.
 */
record SmMaster(String guid, Integer lid, String host) {

  /** Whether an sminfo answer (guid, lid) names another SM than this one. */
  boolean differsFrom(String otherGuid, Integer otherLid) {
    return (guid != null && otherGuid != null && !guid.equalsIgnoreCase(otherGuid))
        || (lid != null && otherLid != null && !lid.equals(otherLid));
  }

  SmMaster withAnswer(String newGuid, Integer newLid) {
    return new SmMaster(newGuid, newLid, host);
  }

  /** Human form for summaries and evidence, e.g. {@code guid 0x2c9... lid 1 on sm01}. */
  String describe() {
    StringBuilder b = new StringBuilder();
    if (guid != null) {
      b.append("guid ").append(guid);
    }
    if (lid != null) {
      b.append(b.isEmpty() ? "" : " ").append("lid ").append(lid);
    }
    if (host != null) {
      b.append(b.isEmpty() ? "host " : " on ").append(host);
    }
    return b.isEmpty() ? "unknown" : b.toString();
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof SmMaster m
        && Objects.equals(guid, m.guid)
        && Objects.equals(lid, m.lid)
        && Objects.equals(host, m.host);
  }

  @Override
  public int hashCode() {
    return Objects.hash(guid, lid, host);
  }
}
