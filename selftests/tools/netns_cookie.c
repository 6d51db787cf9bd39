// SPDX-License-Identifier: GPL-2.0
/* netns_cookie: prints the cookie of the network namespace it runs in,
 * which names the namespace's folder of cpusteer pins
 * (/sys/fs/bpf/cpusteer/ns<cookie>/), for the network namespace tests.
 */
#include <stdio.h>
#include <unistd.h>
#include <sys/socket.h>

int main(void)
{
	unsigned long long cookie;
	socklen_t len = sizeof(cookie);
	int fd = socket(AF_UNIX, SOCK_DGRAM, 0);

	if (fd < 0 || getsockopt(fd, SOL_SOCKET, SO_NETNS_COOKIE, &cookie, &len)) {
		perror("netns_cookie");
		return 1;
	}
	close(fd);
	printf("%llu\n", cookie);
	return 0;
}
