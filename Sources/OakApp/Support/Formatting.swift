import Foundation
import OakModels

/// How the app writes names, fields and times.
public enum Formatting {
    /// A species' full name: "Quercus alba", "Quercus × bebbiana".
    public static func fullName(_ name: String) -> String {
        Species.fullName(name)
    }

    /// What an empty field invites the user to write.
    public static func placeholder(_ field: NoteFields.Field) -> String {
        switch field {
        case .commonNames: "White oak, stave oak…"
        case .leaf: "Shape, lobes, margin, hairs, colour…"
        case .acorn: "Cup, scales, nut shape, maturation…"
        case .bark: "Colour, texture, furrows…"
        case .twigs: "Colour, hairs, lenticels…"
        case .buds: "Size, shape, scales…"
        case .form: "Habit, height, crown…"
        case .rangeHabitat: "Where it grows, soils, elevation…"
        case .fieldNotes: "What you saw, where, how to tell it apart…"
        case .resources: "Links, books, herbarium sheets…"
        }
    }

    /// "just now", "5 min ago", "3 h ago", or the date for anything older than a day.
    public static func relative(_ date: Date, now: Date) -> String {
        let seconds = now.timeIntervalSince(date)
        switch seconds {
        case ..<60: return "just now"
        case ..<3600: return "\(Int(seconds / 60)) min ago"
        case ..<86_400: return "\(Int(seconds / 3600)) h ago"
        default: return date.formatted(date: .abbreviated, time: .shortened)
        }
    }

    /// The order of group titles: by name, the empty one (species not placed in the taxonomy) last.
    public static func groupOrder(_ first: String, _ second: String) -> Bool {
        first.isEmpty == second.isEmpty ? first < second : second.isEmpty
    }

    /// The first common name of a note's common names, if any.
    public static func firstCommonName(_ commonNames: String?) -> String? {
        NoteFields.localNames(from: commonNames).first
    }
}
