import Foundation
import OakModels

/// `oak source list|show|new|edit|delete`.
public enum SourceCommands {
    static func sourceFields(_ source: Source?) -> [YAMLDocument.Field] {
        [
            .init("name", "required", source?.name),
            .init("source_type", "required: Website, Book, Personal Observation, Journal Article, Database or Other", source?.sourceType),
            .init("description", "what the source is", source?.description),
            .init("author", "who wrote it", source?.author),
            .init("year", "the year published (a whole number)", source?.year),
            .init("url", "its address", source?.url),
            .init("isbn", "for a book", source?.isbn),
            .init("doi", "for an article", source?.doi),
            .init("license", "the license of its text, e.g. CC BY-NC 4.0", source?.license),
            .init("license_url", "the license's address", source?.licenseURL),
            .init("notes", "free text", source?.notes),
        ]
    }
}
