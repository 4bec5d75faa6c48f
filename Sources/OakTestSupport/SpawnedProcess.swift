import Foundation

#if canImport(Glibc)
import Glibc

/// A child process started with `posix_spawn`, for the tests that run the built binaries. Foundation's
/// `Process.run()` on this toolchain now and then crashes the test process: `findMaximumOpenFromProcSelfFD`
/// copies a whole `d_name` past glibc's readdir buffer (swiftlang/swift-corelibs-foundation#5472, not in Swift
/// 6.3.1). The child gets standard input from `/dev/null`, standard output and error where the caller says
/// (`/dev/null` by default), no other descriptor of the test process, and default signal handling.
public final class SpawnedProcess: @unchecked Sendable {
    /// The child's process id.
    public let processIdentifier: pid_t
    private let lock = NSLock()
    /// `waitpid`'s status once the child was reaped.
    private var waitStatus: Int32?

    /// Starts `executable` with `arguments` and exactly `environment`, in `directory` if given; `output` and
    /// `error` are descriptors the child writes its standard output and error to.
    public init(
        executable: URL, arguments: [String], environment: [String: String], directory: URL? = nil, output: Int32? = nil, error: Int32? = nil
    ) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        for (target, source) in [(Int32(1), output), (Int32(2), error)] {
            if let source {
                posix_spawn_file_actions_adddup2(&actions, source, target)
            } else {
                posix_spawn_file_actions_addopen(&actions, target, "/dev/null", O_WRONLY, 0)
            }
        }
        // Nothing else the test process has open (other tests' pipes, sockets) reaches the child.
        guard let closeFrom = Self.glibc("posix_spawn_file_actions_addclosefrom_np", as: AddCloseFrom.self),
            let changeDirectory = Self.glibc("posix_spawn_file_actions_addchdir_np", as: AddChangeDirectory.self)
        else {
            throw CocoaError(.featureUnsupported, userInfo: [NSLocalizedDescriptionKey: "posix_spawn needs glibc 2.34 or newer"])
        }
        _ = closeFrom(&actions, 3)
        if let directory { _ = changeDirectory(&actions, directory.path) }

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var allSignals = sigset_t()
        sigfillset(&allSignals)
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        posix_spawnattr_setsigdefault(&attributes, &allSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))

        let argv = ([executable.path] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var pid = pid_t()
        let result = posix_spawn(&pid, executable.path, &actions, &attributes, argv, envp)
        guard result == 0 else {
            throw CocoaError(.executableLoad, userInfo: [NSLocalizedDescriptionKey: "posix_spawn \(executable.path): \(String(cString: strerror(result)))"])
        }
        processIdentifier = pid
    }

    /// A child not waited for is waited for in the background, so it does not stay a zombie.
    deinit {
        guard waitStatus == nil else { return }
        let pid = processIdentifier
        Thread.detachNewThread {
            var status: Int32 = 0
            _ = waitpid(pid, &status, 0)
        }
    }

    private typealias AddCloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
    private typealias AddChangeDirectory = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, UnsafePointer<CChar>) -> Int32

    /// A glibc function that Swift's Glibc module does not declare (the `_np` spawn actions), looked up at run time.
    private static func glibc<Function>(_ name: String, as type: Function.Type) -> Function? {
        dlsym(UnsafeMutableRawPointer(bitPattern: 0), name).map { unsafeBitCast($0, to: type) }
    }

    /// Whether the child has not exited yet.
    public var isRunning: Bool {
        lock.withLock {
            if waitStatus == nil { reap(options: WNOHANG) }
            return waitStatus == nil
        }
    }

    /// Waits for the child to exit.
    public func waitUntilExit() {
        lock.withLock {
            while waitStatus == nil { reap(options: 0) }
        }
    }

    /// The exit code, or the number of the signal that ended the child; wait for it first.
    public var terminationStatus: Int32 {
        lock.withLock {
            guard let status = waitStatus else { return -1 }
            let signal = status & 0x7F
            return signal == 0 ? (status >> 8) & 0xFF : signal
        }
    }

    /// Asks the child to stop (SIGTERM).
    public func terminate() {
        kill(processIdentifier, SIGTERM)
    }

    /// Records the child's status if it has exited (`WNOHANG`) or once it does.
    private func reap(options: Int32) {
        var status: Int32 = 0
        let reaped = waitpid(processIdentifier, &status, options)
        if reaped == processIdentifier {
            waitStatus = status
        } else if reaped == -1 && errno != EINTR {
            waitStatus = status
        }
    }
}
#else
/// A child process (see the Linux version's comment); elsewhere Foundation's `Process` starts it.
public final class SpawnedProcess: @unchecked Sendable {
    private let process = Process()

    /// The child's process id.
    public var processIdentifier: pid_t { process.processIdentifier }

    /// Starts `executable` with `arguments` and exactly `environment`, in `directory` if given; `output` and
    /// `error` are descriptors the child writes its standard output and error to.
    public init(
        executable: URL, arguments: [String], environment: [String: String], directory: URL? = nil, output: Int32? = nil, error: Int32? = nil
    ) throws {
        process.executableURL = executable
        process.arguments = arguments
        process.environment = environment
        process.currentDirectoryURL = directory
        process.standardOutput = output.map { FileHandle(fileDescriptor: $0, closeOnDealloc: false) } ?? FileHandle.nullDevice
        process.standardError = error.map { FileHandle(fileDescriptor: $0, closeOnDealloc: false) } ?? FileHandle.nullDevice
        try process.run()
    }

    /// Whether the child has not exited yet.
    public var isRunning: Bool { process.isRunning }

    /// Waits for the child to exit.
    public func waitUntilExit() { process.waitUntilExit() }

    /// The exit code, or the number of the signal that ended the child; wait for it first.
    public var terminationStatus: Int32 { process.terminationStatus }

    /// Asks the child to stop (SIGTERM).
    public func terminate() { process.terminate() }
}
#endif
