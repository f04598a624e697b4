package io.fabricpulse.collectors.nccl;

/**
 * One complete line of a log file, as the tailer read it.
 *
 * @param file path of the log file
 * @param lineNo 1-based line number in the file
 * @param text the line without its line terminator
 * @param job job id derived from the path, or null
 */
public record NcclLogLine(String file, long lineNo, String text, String job) {}
