package io.fabricpulse.app.demo;

import io.fabricpulse.app.run.EmbeddedPipeline;
import io.fabricpulse.schemas.topics.TopicSpec;
import io.fabricpulse.sinks.influx.InfluxSink;
import io.fabricpulse.streams.FabricTopology;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;

/**
 * Waits until every consumer of the pipeline has committed everything that was produced: the
 * streams application on the raw and internal topics, then the sink and the console on the derived
 * topics. Polls the committed offsets with a deadline; returns the groups still behind.
 */
final class PipelineDrain {
  static final String CONSOLE_GROUP = "fabricpulse-demo-console";

  private PipelineDrain() {}

  /**
   * The sink commits only past closed 10 s buckets, so its committed offsets trail on purpose; it
   * is drained when it has consumed as many derived records as the console has.
   */
  static List<String> await(EmbeddedPipeline pipeline, DemoWatcher watcher, Duration stall)
      throws InterruptedException {
    // the tests: as long as anything moves; a loaded machine is slower, not wrong
    return await(pipeline, watcher, stall, null, line -> {});
  }

  /**
   * Waits as long as the consumers make progress: {@code stall} without any group committing
   * further ends the wait (with the groups still behind), and so does {@link #LIMIT} in all (the
   * demo's bound; the tests' three-argument form has none). Progress is committed offsets moving,
   * not the total lag going down: the streams application's repartition topics fill while it reads
   * the raw topics, so on a loaded machine the total lag can stay level for a minute while
   * everything moves. Reports the remaining lag to {@code progress} every few seconds.
   */
  static List<String> await(
      EmbeddedPipeline pipeline,
      DemoWatcher watcher,
      Duration stall,
      java.util.function.Consumer<String> progress)
      throws InterruptedException {
    return await(pipeline, watcher, stall, LIMIT, progress);
  }

  /** As above, with {@code limit} in all (null: none, only the stall ends the wait). */
  private static List<String> await(
      EmbeddedPipeline pipeline,
      DemoWatcher watcher,
      Duration stall,
      Duration limit,
      java.util.function.Consumer<String> progress)
      throws InterruptedException {
    List<String> behind = awaitGroups(pipeline, stall, limit, progress);
    long deadline = System.nanoTime() + stall.toNanos();
    InfluxSink sink = pipeline.sink();
    long consumed = sink.metrics().recordsConsumed();
    while (sink.metrics().recordsConsumed() < watcher.rates() + watcher.alerts().size()
        || sink.pendingPoints() > 0) {
      if (sink.metrics().recordsConsumed() > consumed) {
        consumed = sink.metrics().recordsConsumed();
        deadline = System.nanoTime() + stall.toNanos(); // still moving
      }
      if (System.nanoTime() > deadline) {
        List<String> all = new ArrayList<>(behind);
        all.add(
            "sink ("
                + sink.metrics().recordsConsumed()
                + " of "
                + (watcher.rates() + watcher.alerts().size())
                + " records)");
        return all;
      }
      TimeUnit.MILLISECONDS.sleep(100);
    }
    return behind;
  }

  /** The longest the demo waits for its pipeline to catch up. */
  static final Duration LIMIT = Duration.ofMinutes(10);

  private static final long REPORT_EVERY_NANOS = Duration.ofSeconds(5).toNanos();

  private static List<String> awaitGroups(
      EmbeddedPipeline pipeline,
      Duration stall,
      Duration limit,
      java.util.function.Consumer<String> progress)
      throws InterruptedException {
    long started = System.nanoTime();
    long lastProgress = started;
    long lastReport = started;
    long committedBefore = -1;
    List<String> behind = List.of();
    try (Admin admin = Admin.create(pipeline.adminConfig())) {
      Set<String> all = admin.listTopics().names().get(30, TimeUnit.SECONDS);
      List<String> streamsInputs =
          new ArrayList<>(pipeline.topics().raw().stream().map(TopicSpec::name).toList());
      streamsInputs.add(pipeline.topics().rates().name());
      all.stream()
          .filter(t -> t.startsWith(FabricTopology.APPLICATION_ID) && t.endsWith("-repartition"))
          .forEach(streamsInputs::add);
      List<String> derived =
          List.of(pipeline.topics().rates().name(), pipeline.topics().alerts().name());
      Map<String, List<String>> groups = new HashMap<>();
      groups.put(FabricTopology.APPLICATION_ID, streamsInputs);
      groups.put(CONSOLE_GROUP, derived);
      while (true) {
        behind = new ArrayList<>();
        long total = 0;
        long committed = 0;
        for (Map.Entry<String, List<String>> g : groups.entrySet()) {
          Lag lag = lag(admin, g.getKey(), g.getValue());
          total += lag.behind();
          committed += lag.committed();
          if (lag.behind() > 0) {
            behind.add(g.getKey() + " (" + lag.behind() + " records)");
          }
        }
        long now = System.nanoTime();
        if (committed > committedBefore) {
          committedBefore = committed;
          lastProgress = now;
        }
        if (behind.isEmpty()
            || now - lastProgress > stall.toNanos()
            || (limit != null && now - started > limit.toNanos())) {
          return behind;
        }
        if (now - lastReport > REPORT_EVERY_NANOS) {
          progress.accept(String.format("  draining: %,d records still to process", total));
          lastReport = now;
        }
        TimeUnit.MILLISECONDS.sleep(250);
      }
    } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
      return List.of("cannot read offsets: " + e.getMessage());
    }
  }

  /** What a group has still to read of its topics, and the sum of its committed offsets. */
  private record Lag(long behind, long committed) {}

  private static Lag lag(Admin admin, String group, List<String> topics)
      throws java.util.concurrent.ExecutionException,
          InterruptedException,
          java.util.concurrent.TimeoutException {
    Map<String, TopicDescription> described =
        admin.describeTopics(topics).allTopicNames().get(30, TimeUnit.SECONDS);
    Map<TopicPartition, OffsetSpec> request = new HashMap<>();
    described
        .values()
        .forEach(
            d ->
                d.partitions()
                    .forEach(
                        p ->
                            request.put(
                                new TopicPartition(d.name(), p.partition()), OffsetSpec.latest())));
    Map<TopicPartition, Long> ends =
        admin
            .listOffsets(request, new ListOffsetsOptions(IsolationLevel.READ_COMMITTED))
            .all()
            .get(30, TimeUnit.SECONDS)
            .entrySet()
            .stream()
            .collect(Collectors.toMap(Map.Entry::getKey, e -> e.getValue().offset()));
    Map<TopicPartition, OffsetAndMetadata> committed =
        admin
            .listConsumerGroupOffsets(group)
            .partitionsToOffsetAndMetadata()
            .get(30, TimeUnit.SECONDS);
    long lag = 0;
    long positions = 0;
    for (Map.Entry<TopicPartition, Long> end : ends.entrySet()) {
      OffsetAndMetadata c = committed.get(end.getKey());
      long position = c == null ? 0 : c.offset();
      lag += Math.max(0, end.getValue() - position);
      positions += position;
    }
    return new Lag(lag, positions);
  }
}
