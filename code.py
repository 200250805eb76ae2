import socket, threading
def tunnel(target, answers):
    s = socket.create_connection(('127.0.0.1', 3128), timeout=120)
    s.sendall(('CONNECT ' + target + ' HTTP/1.1\r\n\r\n').encode())
    answers.append(s.recv(4096).decode().split('\r\n')[0])
held = []
waiting = [threading.Thread(target=tunnel, args=('127.0.0.1:', held)) for _ in range(20)]
for t in waiting: t.start()
others = []
from concurrent.futures import ThreadPoolExecutor
with ThreadPoolExecutor(16) as pool:
    for port in range(1, 1001): pool.submit(tunnel, '127.0.0.2:%d' % port, others)
print('others refused', sum(a.startswith('HTTP/1.1 403') for a in others), others[:3])
for t in waiting: t.join()
print('held allowed', sum(a.startswith('HTTP/1.1 200') for a in held))
