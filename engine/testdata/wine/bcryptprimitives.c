/* bcryptprimitives.dll for Wine 8, which lacks ProcessPrng: Go 1.22+ on
 * Windows loads ProcessPrng from System32\bcryptprimitives.dll at start and
 * dies without it. This one fills the buffer with advapi32's RtlGenRandom
 * (SystemFunction036). Built by scripts/wine-test.sh; test use only. */
#include <windows.h>

BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);

BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T len)
{
	while (len > 0) {
		ULONG n = len > 0x40000000 ? 0x40000000 : (ULONG)len;
		if (!SystemFunction036(data, n))
			return FALSE;
		data += n;
		len -= n;
	}
	return TRUE;
}
