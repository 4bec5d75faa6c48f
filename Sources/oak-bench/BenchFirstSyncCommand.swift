import ArgumentParser
import Foundation
import OakModels
import OakSync

/// `oak-bench first-sync`: what a phone's first launch costs: a new device's first sync against a running
/// server (every note pulled and applied), the peak memory of doing it, a sync with nothing to do, and the
/// write-ahead log left behind. Prints the harness's raw result lines.
struct BenchFirstSyncCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "first-sync",
        abstract: "Time a new device's first sync and a no-change sync against a server; prints result lines (JSON)."
    )

    @Option(help: "The server's port on 127.0.0.1.")
    var port: Int

    @Option(help: "How many first syncs to time, each on a new device.")
    var runs = 5

    func run() async throws {
        guard runs >= 1 else { throw ValidationError("--runs must be at least 1") }
        let server = DeviceServer(baseURL: URL(string: "http://127.0.0.1:\(port)")!, apiKey: nil)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("oak-first-sync-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        var firsts: [Double] = []
        var noChange: [Double] = []
        var notes = 0
        var walBytes = 0
        var peak = 0.0
        let start = Self.residentMegabytes("VmRSS:")
        for run in 0..<runs {
            let path = directory.appendingPathComponent("device-\(run).sqlite").path
            let device = try OakDevice(storage: .file(path), server: server, connectivity: AlwaysOnline())
            guard let engine = device.engine else { throw ValidationError("no sync engine") }
            firsts.append(await milliseconds { await engine.sync() })
            if case .error = await engine.status.state { throw ValidationError("the first sync failed: \(await engine.status.lastError ?? "")") }
            // The peak of a process that has done one first sync, as a phone's would be.
            if run == 0 { peak = Self.residentMegabytes("VmHWM:") }
            notes = try await device.store.noteCount()
            walBytes = (try? FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? Int) ?? 0
            for _ in 0..<20 {
                noChange.append(await milliseconds { await engine.sync() })
            }
        }
        say(
            #"{"name": "first_sync", "label": "First sync of a new device (\#(notes) notes, pulled and applied)", "median_ms": \#(median(firsts)), "first_ms": \#((firsts[0] * 100).rounded() / 100), "notes": \#(notes)}"#
        )
        say(#"{"name": "first_sync_peak", "label": "Peak RSS of a process after its first sync (VmHWM)", "mb": \#(peak), "start_mb": \#(start)}"#)
        say(#"{"name": "no_change_sync", "label": "Sync with nothing to push or pull", "median_ms": \#(median(noChange))}"#)
        say(#"{"name": "first_sync_wal", "label": "Write-ahead log left after the first sync", "mb": \#((Double(walBytes) / 10_485.76).rounded() / 100)}"#)
    }

    /// A memory figure of this process from /proc/self/status (`VmRSS:` now, `VmHWM:` the peak), in MB;
    /// 0 where there is none.
    private static func residentMegabytes(_ field: String) -> Double {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix(field) }),
            let kilobytes = Double(line.split(separator: " ").dropFirst().first ?? "")
        else { return 0 }
        return (kilobytes / 102.4).rounded() / 10
    }
}

/// The loopback server is always reachable.
private struct AlwaysOnline: Connectivity {
    var isOnline: Bool { true }
    func changes() -> AsyncStream<Bool> { AsyncStream { $0.finish() } }
}
