package io.fabricpulse.bridges.render;

import io.fabricpulse.bridges.config.Person;
import java.util.List;
import java.util.Set;

/**
 * One message to post, before a robot puts it in its JSON body: a title (DingTalk shows it in the
 * notification; WeCom gets it as the first line), markdown lines, and who to @-mention.
 *
 * @param alertCount how many alert state changes the message carries
 */
public record Message(String title, List<String> lines, Set<Person> mentions, int alertCount) {}
