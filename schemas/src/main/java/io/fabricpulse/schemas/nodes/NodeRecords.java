package io.fabricpulse.schemas.nodes;

import io.fabricpulse.avro.CounterRates;
import io.fabricpulse.avro.EcnMarks;
import io.fabricpulse.avro.NodeCounters;
import io.fabricpulse.avro.NodeRates;
import io.fabricpulse.avro.PfcPauseFrames;
import io.fabricpulse.avro.PortCounters;
import io.fabricpulse.avro.PortRates;
import io.fabricpulse.avro.PortSample;
import io.fabricpulse.avro.RateSource;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.apache.avro.specific.SpecificRecord;

/**
 * Between the wire records of contract 0.2 ({@link NodeCounters}, {@link NodeRates}: one record per
 * node, source and cycle) and the per-port views the parsers build and the detectors read ({@link
 * PortCounters}, {@link PfcPauseFrames}, {@link EcnMarks}, {@link CounterRates}, which were the
 * wire records of contract 0.1 and are still what {@code parse} prints and {@code detect} reads).
 *
 * <p>The views of one node record share its header: cluster, node, boot id, time and the record's
 * sequence number. Counter lists are shared, not copied.
 */
public final class NodeRecords {

  private NodeRecords() {}

  /** The header of one node's cycle: who took the samples, when, and the record's number. */
  public record Cycle(String cluster, String node, String bootId, long seq, Instant time) {}

  /** One NodeCounters of source PORT (or PERFQUERY) from the port views of one cycle. */
  public static NodeCounters ofPorts(Cycle cycle, RateSource source, List<PortCounters> ports) {
    List<PortSample> samples = new ArrayList<>(ports.size());
    for (PortCounters p : ports) {
      samples.add(
          PortSample.newBuilder()
              .setDevice(p.getDevice())
              .setPort(p.getPort())
              .setNetdev(p.getNetdev())
              .setLinkLayer(p.getLinkLayer())
              .setState(p.getState())
              .setPhysState(p.getPhysState())
              .setRate(p.getRate())
              .setRateGbps(p.getRateGbps())
              .setLinkWidth(p.getLinkWidth())
              .setNetdevMtu(p.getNetdevMtu())
              .setNetdevSpeedMbps(p.getNetdevSpeedMbps())
              .setCounters(p.getCounters())
              .setReadErrors(p.getReadErrors())
              .build());
    }
    return node(cycle, source, samples);
  }

  /** One NodeCounters of source PFC from the netdev views of one ethtool cycle. */
  public static NodeCounters ofPfc(Cycle cycle, List<PfcPauseFrames> netdevs) {
    List<PortSample> samples = new ArrayList<>(netdevs.size());
    for (PfcPauseFrames p : netdevs) {
      samples.add(
          PortSample.newBuilder()
              .setNetdev(p.getNetdev())
              .setDriver(p.getDriver())
              .setDevice(p.getDevice())
              .setCounters(p.getCounters())
              .build());
    }
    return node(cycle, RateSource.PFC, samples);
  }

  /** One NodeCounters of source ECN from the port views of one ethtool cycle. */
  public static NodeCounters ofEcn(Cycle cycle, List<EcnMarks> ports) {
    List<PortSample> samples = new ArrayList<>(ports.size());
    for (EcnMarks e : ports) {
      samples.add(
          PortSample.newBuilder()
              .setDevice(e.getDevice())
              .setPort(e.getPort())
              .setNetdev(e.getNetdev())
              .setCounters(e.getCounters())
              .build());
    }
    return node(cycle, RateSource.ECN, samples);
  }

  private static NodeCounters node(Cycle cycle, RateSource source, List<PortSample> samples) {
    return NodeCounters.newBuilder()
        .setCluster(cycle.cluster())
        .setNode(cycle.node())
        .setBootId(cycle.bootId())
        .setSeq(cycle.seq())
        .setTime(cycle.time())
        .setSource(source)
        .setPorts(samples)
        .build();
  }

  /**
   * The per-port views of a node record: {@link PortCounters} for PORT and PERFQUERY, {@link
   * PfcPauseFrames} for PFC, {@link EcnMarks} for ECN, each with the record's header.
   */
  public static List<SpecificRecord> views(NodeCounters node) {
    List<SpecificRecord> views = new ArrayList<>(node.getPorts().size());
    for (PortSample p : node.getPorts()) {
      views.add(view(node, p));
    }
    return views;
  }

  /** The view of one port of a node record. */
  public static SpecificRecord view(NodeCounters node, PortSample p) {
    switch (node.getSource()) {
      case PFC:
        return PfcPauseFrames.newBuilder()
            .setCluster(node.getCluster())
            .setNode(node.getNode())
            .setBootId(node.getBootId())
            .setSeq(node.getSeq())
            .setTime(node.getTime())
            .setNetdev(p.getNetdev() == null ? "" : p.getNetdev())
            .setDriver(p.getDriver())
            .setDevice(p.getDevice())
            .setCounters(p.getCounters())
            .build();
      case ECN:
        return EcnMarks.newBuilder()
            .setCluster(node.getCluster())
            .setNode(node.getNode())
            .setBootId(node.getBootId())
            .setSeq(node.getSeq())
            .setTime(node.getTime())
            .setDevice(p.getDevice())
            .setPort(p.getPort())
            .setNetdev(p.getNetdev())
            .setCounters(p.getCounters())
            .build();
      default:
        return PortCounters.newBuilder()
            .setCluster(node.getCluster())
            .setNode(node.getNode())
            .setBootId(node.getBootId())
            .setSeq(node.getSeq())
            .setTime(node.getTime())
            .setDevice(p.getDevice() == null ? "" : p.getDevice())
            .setPort(p.getPort() == null ? 0 : p.getPort())
            .setLinkLayer(p.getLinkLayer())
            .setState(p.getState())
            .setPhysState(p.getPhysState())
            .setRate(p.getRate())
            .setRateGbps(p.getRateGbps())
            .setLinkWidth(p.getLinkWidth())
            .setNetdev(p.getNetdev())
            .setNetdevMtu(p.getNetdevMtu())
            .setNetdevSpeedMbps(p.getNetdevSpeedMbps())
            .setCounters(p.getCounters())
            .setReadErrors(p.getReadErrors())
            .build();
    }
  }

  /**
   * One NodeRates from the per-port rates of one node record, in order; the header is the first
   * view's (every view of one node record has the same header).
   *
   * @throws IllegalArgumentException when {@code ports} is empty
   */
  public static NodeRates ofRates(List<CounterRates> ports) {
    if (ports.isEmpty()) {
      throw new IllegalArgumentException("a NodeRates needs at least one port's rates");
    }
    CounterRates first = ports.get(0);
    List<PortRates> entries = new ArrayList<>(ports.size());
    for (CounterRates r : ports) {
      entries.add(
          PortRates.newBuilder()
              .setIntervalMs(r.getIntervalMs())
              .setDevice(r.getDevice())
              .setPort(r.getPort())
              .setNetdev(r.getNetdev())
              .setLinkLayer(r.getLinkLayer())
              .setState(r.getState())
              .setPhysState(r.getPhysState())
              .setRateGbps(r.getRateGbps())
              .setLinkWidth(r.getLinkWidth())
              .setNetdevMtu(r.getNetdevMtu())
              .setRates(r.getRates())
              .build());
    }
    return NodeRates.newBuilder()
        .setCluster(first.getCluster())
        .setNode(first.getNode())
        .setBootId(first.getBootId())
        .setSeq(first.getSeq())
        .setTime(first.getTime())
        .setSource(first.getSource())
        .setPorts(entries)
        .build();
  }

  /**
   * The per-port rates of a record read from fabric.rates: the views of a 0.2 NodeRates, or the one
   * 0.1 CounterRates itself; none for a tombstone (null).
   *
   * @throws IllegalArgumentException for any other record
   */
  public static List<CounterRates> portRates(SpecificRecord rates) {
    if (rates == null) {
      return List.of();
    }
    if (rates instanceof NodeRates node) {
      return views(node);
    }
    if (rates instanceof CounterRates port) {
      return List.of(port);
    }
    throw new IllegalArgumentException("not a rates record: " + rates.getSchema().getFullName());
  }

  /**
   * The per-port views of a NodeRates, each with its header. Built with the all-fields constructor
   * (every field is given, from a record that was valid): this runs for every rates record every
   * detector reads, and the builder's per-field validation was a visible share of that.
   */
  public static List<CounterRates> views(NodeRates node) {
    List<CounterRates> views = new ArrayList<>(node.getPorts().size());
    for (PortRates p : node.getPorts()) {
      views.add(
          new CounterRates(
              node.getCluster(),
              node.getNode(),
              node.getBootId(),
              node.getSeq(),
              node.getTime(),
              p.getIntervalMs(),
              node.getSource(),
              p.getDevice(),
              p.getPort(),
              p.getNetdev(),
              p.getLinkLayer(),
              p.getState(),
              p.getPhysState(),
              p.getRateGbps(),
              p.getLinkWidth(),
              p.getNetdevMtu(),
              p.getRates()));
    }
    return views;
  }
}
