package io.fabricpulse.streams.peers;

import io.fabricpulse.avro.CounterRates;
import io.fabricpulse.streams.alerts.AlertSubject;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * Which RDMA port a host's netdev is, as the host's own samples say: a port sample (sysfs, ECN
 * hw_counters) names its device, port and netdev together ({@code mlx5_8} port 1 is {@code
 * ens9f0np0}). Forwards {@code cluster/node/netdev=<netdev>} -> {@code
 * cluster/node/device=<device>/port=<port>} at the sample's time when the node first shows it or it
 * changes (a re-plugged NIC), so the index costs one store read per sample and a record per change.
 *
 * <p>Store {@link LinkPeers#NETDEV_PORTS_STORE}: netdev key -> port key, the last one forwarded.
 */
final class NetdevPortIndexer implements Processor<String, CounterRates, String, String> {

  private ProcessorContext<String, String> context;
  private KeyValueStore<String, String> ports;

  @Override
  public void init(ProcessorContext<String, String> context) {
    this.context = context;
    this.ports = context.getStateStore(LinkPeers.NETDEV_PORTS_STORE);
  }

  @Override
  public void process(Record<String, CounterRates> record) {
    CounterRates r = record.value();
    if (r == null
        || r.getNode() == null
        || r.getDevice() == null
        || r.getPort() == null
        || r.getNetdev() == null
        || r.getNetdev().isBlank()) {
      return;
    }
    AlertSubject node = AlertSubject.node(r.getCluster(), r.getNode());
    String netdevKey = node.withNetdev(r.getNetdev()).key();
    String portKey = node.withDevice(r.getDevice()).withPort(r.getPort()).key();
    if (!portKey.equals(ports.get(netdevKey))) {
      ports.put(netdevKey, portKey);
      context.forward(record.withKey(netdevKey).withValue(portKey));
    }
  }
}
