/* faultmon: the deadline helpers now live in clock.h; kept for old includes. */
#include <faultmon/clock.h>
