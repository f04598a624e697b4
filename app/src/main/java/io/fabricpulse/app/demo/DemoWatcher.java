package io.fabricpulse.app.demo;

import io.fabricpulse.avro.Alert;
import io.fabricpulse.avro.CounterRate;
import io.fabricpulse.avro.CounterRates;
import io.fabricpulse.avro.NodeRates;
import io.fabricpulse.avro.RateSource;
import io.fabricpulse.schemas.nodes.NodeRecords;
import io.fabricpulse.schemas.serde.AvroDeserializer;
import io.fabricpulse.schemas.serde.AvroOneOfDeserializer;
import io.fabricpulse.schemas.serde.AvroSerdeConfig;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * Reads what the pipeline derived (rates and alerts) for the live console: how many rates records
 * arrived, the latest throughput of every port, and every alert as it fires.
 */
final class DemoWatcher implements Runnable, AutoCloseable {

  /** Latest throughput of one port, bytes per second. */
  record PortLoad(String port, double txBytesPerSecond, double rxBytesPerSecond) {}

  private final KafkaConsumer<String, byte[]> consumer;
  private final AvroOneOfDeserializer ratesDecoder =
      new AvroOneOfDeserializer(List.of(NodeRates.class, CounterRates.class));
  private final AvroDeserializer<Alert> alertDecoder = new AvroDeserializer<>(Alert.class);
  private final String ratesTopic;
  private final String alertsTopic;
  private final Consumer<Alert> onAlert;
  private final AtomicBoolean running = new AtomicBoolean(true);
  private final AtomicLong rates = new AtomicLong();
  private final AtomicLong portRates = new AtomicLong();
  private final AtomicLong undecodable = new AtomicLong();
  private final Map<String, PortLoad> loads = new ConcurrentHashMap<>();
  private final List<Alert> alerts = new CopyOnWriteArrayList<>();

  DemoWatcher(Properties config, String ratesTopic, String alertsTopic, Consumer<Alert> onAlert) {
    Map<String, Object> serde =
        Map.of(
            AvroSerdeConfig.SCHEMA_REGISTRY_URL, config.get(AvroSerdeConfig.SCHEMA_REGISTRY_URL));
    ratesDecoder.configure(serde, false);
    alertDecoder.configure(serde, false);
    Properties kafka = new Properties();
    config.forEach(
        (k, v) -> {
          if (!k.toString().startsWith("schema.registry.")) {
            kafka.put(k, v);
          }
        });
    kafka.put("auto.commit.interval.ms", "200");
    this.consumer =
        new KafkaConsumer<>(kafka, new StringDeserializer(), new ByteArrayDeserializer());
    this.ratesTopic = ratesTopic;
    this.alertsTopic = alertsTopic;
    this.onAlert = onAlert;
  }

  @Override
  public void run() {
    consumer.subscribe(List.of(ratesTopic, alertsTopic));
    try {
      while (running.get()) {
        for (ConsumerRecord<String, byte[]> record : consumer.poll(Duration.ofMillis(200))) {
          try {
            watch(record);
          } catch (org.apache.kafka.common.errors.SerializationException e) {
            // not the pipeline's record (demo --corrupt-rate writes bad ones to fabric.rates too):
            // the streams application dead-letters it; the console counts and skips it
            undecodable.incrementAndGet();
          }
        }
      }
    } catch (org.apache.kafka.common.errors.WakeupException e) {
      // closing
    } finally {
      consumer.close();
    }
  }

  private void watch(ConsumerRecord<String, byte[]> record) {
    if (record.topic().equals(ratesTopic)) {
      List<CounterRates> ports =
          NodeRecords.portRates(ratesDecoder.deserialize(record.topic(), record.value()));
      rates.incrementAndGet();
      ports.forEach(this::observe);
    } else {
      Alert alert = alertDecoder.deserialize(record.topic(), record.value());
      alerts.add(alert);
      onAlert.accept(alert);
    }
  }

  /** Records the console could not decode and skipped. */
  long undecodable() {
    return undecodable.get();
  }

  private void observe(CounterRates r) {
    if (r.getSource() != RateSource.PORT) {
      return;
    }
    portRates.incrementAndGet();
    Map<String, Double> perSecond = new HashMap<>();
    for (CounterRate rate : r.getRates()) {
      if (rate.getPerSecond() != null) {
        perSecond.put(rate.getName(), rate.getPerSecond());
      }
    }
    String port = r.getNode() + "/" + r.getDevice() + "/" + r.getPort();
    loads.put(
        port,
        new PortLoad(
            port,
            perSecond.getOrDefault("port_xmit_data", 0.0),
            perSecond.getOrDefault("port_rcv_data", 0.0)));
  }

  /** Rates records of ports (one row each in the port-rates measurement). */
  long portRates() {
    return portRates.get();
  }

  /** Records on fabric.rates (one per node cycle and source, what the sink consumes). */
  long rates() {
    return rates.get();
  }

  List<Alert> alerts() {
    return new ArrayList<>(alerts);
  }

  List<PortLoad> busiest(int n) {
    return loads.values().stream()
        .sorted(
            Comparator.comparingDouble((PortLoad p) -> p.txBytesPerSecond() + p.rxBytesPerSecond())
                .reversed())
        .limit(n)
        .toList();
  }

  @Override
  public void close() {
    running.set(false);
    consumer.wakeup();
  }
}
