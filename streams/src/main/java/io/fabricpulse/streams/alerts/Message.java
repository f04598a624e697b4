package io.fabricpulse.streams.alerts;

import java.text.MessageFormat;
import java.util.List;
import java.util.Locale;
import java.util.ResourceBundle;

/**
 * A summary sentence as a message key plus arguments, rendered from the resource bundle {@code
 * io.fabricpulse.streams.alerts.AlertMessages}. Adding {@code AlertMessages_zh_CN.properties}
 * translates every summary without touching a detector.
 */
public record Message(String key, List<String> args) {

  private static final String BUNDLE = "io.fabricpulse.streams.alerts.AlertMessages";

  public Message {
    args = List.copyOf(args);
  }

  public static Message of(String key, Object... args) {
    return new Message(key, java.util.Arrays.stream(args).map(String::valueOf).toList());
  }

  /** The sentence in the default (English) bundle. */
  public String render() {
    return render(Locale.ROOT);
  }

  public String render(Locale locale) {
    ResourceBundle bundle = ResourceBundle.getBundle(BUNDLE, locale);
    return new MessageFormat(bundle.getString(key), locale).format(args.toArray());
  }
}
