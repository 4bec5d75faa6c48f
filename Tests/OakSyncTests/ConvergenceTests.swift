import Foundation
import OakClient
import OakModels
import OakSync
import OakTestBasics
import OakTestSupport
import Testing

/// The acceptance test: three devices on a faulty network write to the same notes and to different
/// ones; once the network heals they must agree with the server, which must hold exactly the
/// last-write-wins outcome of every user write.
@Suite("OakSync convergence under network faults", .timeLimit(.minutes(1)))
struct ConvergenceTests {
    /// The latest user write to each species' note: its fields, or nil for a delete.
    struct Outcome {
        var time: Date
        var fields: NoteFields?
    }

    /// Who may do what to a species' note, so that last write wins is defined per species:
    /// an owned species is created once by its owner; a contested one may be created by every device
    /// (creation conflicts) but is never deleted. Every device edits every note it sees.
    enum Slot {
        case owned(by: Int)
        case contested

        func mayCreate(_ device: Int) -> Bool {
            switch self {
            case .owned(let owner): owner == device
            case .contested: true
            }
        }

        var mayDelete: Bool {
            if case .owned = self { return true }
            return false
        }
    }

    static let operations = 600

    @Test("Three devices with faults, offline periods and concurrent writes converge to last write wins")
    func convergence() async throws {
        let seed = ProcessInfo.processInfo.environment["OAK_SYNC_SEED"].flatMap(UInt64.init) ?? UInt64.random(in: 1...UInt64.max)
        print("ConvergenceTests seed: \(seed) (rerun with OAK_SYNC_SEED=\(seed))")
        try await LiveServer.run { server in
            try await Self.run(server: server, seed: seed)
        }
    }

    static func run(server: LiveServer, seed: UInt64) async throws {
        let context = Comment(rawValue: "seed \(seed)")
        var random = SeededRandom(seed: seed)
        let api = server.client()
        let clock = WriteClock()
        let devices = try (0..<3).map { index in
            try Device(server: server, clock: clock, network: FaultyTransport(seed: seed &+ UInt64(index) &+ 1))
        }
        for device in devices { await device.engine.sync() }

        // Species without a personal note yet: three owned by each device, three contested.
        let taken = Set(try await api.notes().map(\.scientificName))
        let free = try await api.listSpecies(limit: 60).data.map(\.scientificName).filter { !taken.contains($0) }
        try #require(free.count >= 12, context)
        var slots: [String: Slot] = [:]
        for (index, name) in free.prefix(12).enumerated() {
            slots[name] = index < 9 ? .owned(by: index / 3) : .contested
        }
        let names = slots.keys.sorted()

        var outcomes: [String: Outcome] = [:]
        var created: Set<String> = []  // "device/species" pairs that created once
        var syncs: [Task<Void, Never>] = []
        for device in devices {
            device.network.faults = FaultyTransport.Faults(
                dropRequest: 0.1, dropResponse: 0.1, serviceUnavailable: 0.05, rateLimited: 0.05, delay: 0.2)
        }

        for step in 0..<operations {
            let index = Int.random(in: 0..<devices.count, using: &random)
            let device = devices[index]
            switch Int.random(in: 0..<100, using: &random) {
            case 0..<12:
                device.set(online: !device.network.online)
            case 12..<30:
                syncs.append(Task { await device.engine.sync() })
            default:
                let name = names[Int.random(in: 0..<names.count, using: &random)]
                let fields = NoteFields(leaf: "device \(index) step \(step)", fieldNotes: "\(seed)/\(step)")
                let visible = try await device.repository.notes(species: name).first
                let written: LocalNote?
                do {
                    let slot = slots[name]!
                    if let note = visible {
                        written =
                            slot.mayDelete && Int.random(in: 0..<4, using: &random) == 0
                            ? try await device.repository.delete(id: note.id)
                            : try await device.repository.update(id: note.id, fields: fields)
                    } else if slot.mayCreate(index), created.insert("\(index)/\(name)").inserted {
                        written = try await device.repository.create(scientificName: name, fields: fields)
                    } else {
                        written = nil
                    }
                } catch let error as OakError where error.code == .notFound || error.code == .conflict {
                    // A concurrent sync changed what the device sees; the write did not happen.
                    written = nil
                }
                if let written {
                    outcomes[name] = Outcome(time: written.updatedAt, fields: written.syncStatus == .pendingDelete ? nil : written.fields)
                }
            }
        }

        // The network heals; the devices sync until nothing is pending, then once more to pull the last pushes.
        for device in devices {
            device.network.faults = .none
            device.set(online: true)
        }
        for task in syncs { await task.value }
        for _ in 0..<6 {
            for device in devices { await device.engine.sync() }
            var pending = 0
            for device in devices { pending += try await device.repository.pendingCount() }
            if pending == 0 { break }
        }
        for device in devices { await device.engine.sync() }

        let serverNotes = try await api.notes().sorted { $0.scientificName < $1.scientificName }
        #expect(Set(serverNotes.map(\.scientificName)).count == serverNotes.count, context)
        for (index, device) in devices.enumerated() {
            let local = try await device.repository.notes()
            #expect(try await device.repository.pendingCount() == 0, "device \(index), \(context)")
            #expect(local.map(\.id) == serverNotes.map(\.id), "device \(index), \(context)")
            #expect(local.map(\.fields) == serverNotes.map(\.fields), "device \(index), \(context)")
            #expect(local.allSatisfy { $0.syncStatus == .synced && $0.lastError == nil }, "device \(index), \(context)")
        }
        for name in names {
            let expected = outcomes[name]?.fields
            let actual = serverNotes.first { $0.scientificName == name }?.fields
            #expect(actual == expected, "species \(name), \(context)")
        }
        #expect(outcomes.count > 6, "the run wrote too little: \(context)")
    }
}
