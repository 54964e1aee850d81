import MQACLI
#if canImport(Glibc)
import Glibc
#endif

exit(CLI.main(Array(CommandLine.arguments.dropFirst())))
