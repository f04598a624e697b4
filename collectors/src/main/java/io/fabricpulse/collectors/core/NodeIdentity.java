package io.fabricpulse.collectors.core;

/**
 * Who took a sample: every record carries these so the rate stage can tell a reboot (new boot id)
 * from a counter clear.
 *
 * @param bootId /proc/sys/kernel/random/boot_id of the node
 */
public record NodeIdentity(String cluster, String node, String bootId) {

  /** The Kafka key of every raw record of this node. */
  public String key() {
    return cluster + "/" + node;
  }
}
