package io.fabricpulse.bridges.render;

import io.fabricpulse.avro.Alert;
import io.fabricpulse.bridges.config.Person;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * Folds alerts into as few digest messages as the robot's size limit allows: whole lines only (a
 * message is split between two lines, never inside one, and the alerts of one incident stay in one
 * message: {@link DigestGroups}), and a single line too long even alone is cut at a character
 * boundary with an ellipsis, so every message stays valid.
 */
public final class MessagePacker {
  private final MessageRenderer renderer;

  public MessagePacker(MessageRenderer renderer) {
    this.renderer = renderer;
  }

  /**
   * One packed message and the alerts it carries, entry by entry: the alerts of an incident follow
   * its first one, so they need not be a prefix of the input.
   */
  public record Packed(Message message, List<Alert> alerts) {}

  /**
   * The digest messages for {@code alerts}, in order, each as large as {@code fits} allows.
   *
   * @param mentionsOf who each alert mentions (the union goes on the message that carries it)
   * @param fits whether the robot accepts a message of this size
   */
  public List<Packed> digest(
      List<Alert> alerts, Function<Alert, Set<Person>> mentionsOf, Predicate<Message> fits) {
    List<Packed> out = new ArrayList<>();
    List<Alert> current = new ArrayList<>();
    for (DigestGroups.Entry entry : DigestGroups.entries(alerts)) {
      List<Alert> unit = entry.alerts();
      current.addAll(unit);
      if (fits.test(build(current, mentionsOf))) {
        continue;
      }
      current.subList(current.size() - unit.size(), current.size()).clear();
      if (!current.isEmpty()) {
        out.add(new Packed(build(current, mentionsOf), List.copyOf(current)));
        current.clear();
      }
      current.addAll(unit);
      if (!fits.test(build(current, mentionsOf))) {
        out.add(new Packed(truncated(current, mentionsOf, fits), List.copyOf(current)));
        current.clear();
      }
    }
    if (!current.isEmpty()) {
      out.add(new Packed(build(current, mentionsOf), List.copyOf(current)));
    }
    return out;
  }

  /** The detailed message of one alert, its longest lines cut until it fits. */
  public Message single(Alert a, Set<Person> mentions, Predicate<Message> fits) {
    Message m = renderer.single(a, mentions);
    return fits.test(m) ? m : shrink(m, fits);
  }

  private Message build(List<Alert> alerts, Function<Alert, Set<Person>> mentionsOf) {
    String title = renderer.digestTitle(alerts);
    List<String> lines = new ArrayList<>();
    lines.add("### " + title);
    lines.add(renderer.digestSummary(alerts));
    lines.addAll(renderer.digestLines(alerts));
    Set<Person> mentions = new LinkedHashSet<>();
    for (Alert a : alerts) {
      mentions.addAll(mentionsOf.apply(a));
    }
    return new Message(title, List.copyOf(lines), mentions, alerts.size());
  }

  private Message truncated(
      List<Alert> one, Function<Alert, Set<Person>> mentionsOf, Predicate<Message> fits) {
    return shrink(build(one, mentionsOf), fits);
  }

  /**
   * Cuts the longest line (by UTF-8 bytes) until the message fits: a summary or a log line quoted
   * in an alert can be kilobytes long, while the title and the subject must stay readable.
   */
  static Message shrink(Message m, Predicate<Message> fits) {
    List<String> lines = new ArrayList<>(m.lines());
    Message current = m;
    while (!fits.test(current)) {
      int longest = 0;
      for (int i = 1; i < lines.size(); i++) {
        if (Utf8.length(lines.get(i)) > Utf8.length(lines.get(longest))) {
          longest = i;
        }
      }
      String line = lines.get(longest);
      int bytes = Utf8.length(line);
      if (bytes <= Utf8.length(Utf8.ELLIPSIS) + 1) {
        throw new IllegalArgumentException(
            "a message of " + lines.size() + " lines cannot be made to fit the robot's limit");
      }
      lines.set(longest, Utf8.truncate(line, bytes * 3 / 4));
      current = new Message(m.title(), List.copyOf(lines), m.mentions(), m.alertCount());
    }
    return current;
  }
}
