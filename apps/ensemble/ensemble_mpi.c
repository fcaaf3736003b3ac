// Kollide ensembles — master–worker over MPI with dynamic load balancing. Rank 0 answers requests
// for sample ranges and collects results between its own samples; each worker asks for its next
// range before it computes the current one, so the answer is waiting when it is done.
// SPDX-License-Identifier: MIT
#include "ensemble.h"

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum
{
	KL_ENS_TAG_REQUEST = 1, ///< worker → master, empty: send me a range
	KL_ENS_TAG_RANGE,		///< master → worker, int[2] [begin, end); empty = stop
	KL_ENS_TAG_RESULT,		///< worker → master: int[3] begin, end, ok; hashes; states
};

#define KL_ENS_MPI_CHUNK 4

typedef struct kl_ens_master
{
	kl_ensemble* ens;
	int next;	  ///< first sample not handed out
	int received; ///< samples whose results are in
	int stopped;  ///< workers told to stop
	bool ok;
} kl_ens_master;

static size_t kl_ens_row(const kl_ensemble* ens)
{
	return kl_ens_row_floats(ens);
}

static size_t kl_ens_result_bytes(const kl_ensemble* ens, int count)
{
	return sizeof(int) * 3 + (size_t)count * (sizeof(uint32_t) + sizeof(float) * kl_ens_row(ens));
}

static void kl_ens_store_result(kl_ens_master* m, const char* buffer)
{
	int header[3];
	memcpy(header, buffer, sizeof(header));
	int count = header[1] - header[0];
	const char* p = buffer + sizeof(header);
	memcpy(m->ens->hashes + header[0], p, sizeof(uint32_t) * (size_t)count);
	p += sizeof(uint32_t) * (size_t)count;
	memcpy(m->ens->states + (size_t)header[0] * kl_ens_row(m->ens), p,
		   sizeof(float) * kl_ens_row(m->ens) * (size_t)count);
	m->received += count;
	m->ok = m->ok && header[2] != 0;
}

// Answers one message; false when it could not be received.
static bool kl_ens_serve_one(kl_ens_master* m, const MPI_Status* status)
{
	if (status->MPI_TAG == KL_ENS_TAG_REQUEST)
	{
		MPI_Recv(NULL, 0, MPI_BYTE, status->MPI_SOURCE, KL_ENS_TAG_REQUEST, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		int range[2] = {m->next, m->next + KL_ENS_MPI_CHUNK};
		range[1] = range[1] < m->ens->def.sample_count ? range[1] : m->ens->def.sample_count;
		range[0] = range[0] < range[1] ? range[0] : range[1];
		m->next = range[1];
		m->stopped += range[0] == range[1];
		MPI_Send(range, 2, MPI_INT, status->MPI_SOURCE, KL_ENS_TAG_RANGE, MPI_COMM_WORLD);
		return true;
	}
	int bytes = 0;
	MPI_Get_count(status, MPI_BYTE, &bytes);
	char* buffer = malloc((size_t)bytes + 1);
	if (buffer == NULL)
	{
		return false;
	}
	MPI_Recv(buffer, bytes, MPI_BYTE, status->MPI_SOURCE, KL_ENS_TAG_RESULT, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	kl_ens_store_result(m, buffer);
	free(buffer);
	kl_ens_progress(m->ens, m->received);
	return true;
}

// Serves every waiting message; with `block`, waits for at least one.
static bool kl_ens_serve(kl_ens_master* m, bool block)
{
	for (;;)
	{
		MPI_Status status;
		int waiting = 1;
		if (block)
		{
			MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &status);
		}
		else
		{
			MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &waiting, &status);
		}
		if (!waiting)
		{
			return true;
		}
		if (!kl_ens_serve_one(m, &status))
		{
			return false;
		}
		block = false;
	}
}

static bool kl_ens_master_run(kl_ensemble* ens, int workers)
{
	kl_ens_master m = {.ens = ens, .ok = true};
	int total = ens->def.sample_count;
	while (m.received < total || m.stopped < workers)
	{
		if (!kl_ens_serve(&m, m.next >= total))
		{
			return false;
		}
		if (m.next < total)
		{
			int i = m.next++;
			m.ok = kl_ens_run_sample(ens, i, ens->states + (size_t)i * kl_ens_row(ens), ens->hashes + i) && m.ok;
			m.received++;
			kl_ens_progress(ens, m.received);
		}
	}
	return m.ok;
}

static bool kl_ens_worker_run(kl_ensemble* ens)
{
	char* buffer = malloc(kl_ens_result_bytes(ens, KL_ENS_MPI_CHUNK));
	if (buffer == NULL)
	{
		return false;
	}
	int range[2];
	MPI_Send(NULL, 0, MPI_BYTE, 0, KL_ENS_TAG_REQUEST, MPI_COMM_WORLD);
	MPI_Recv(range, 2, MPI_INT, 0, KL_ENS_TAG_RANGE, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	while (range[0] < range[1])
	{
		MPI_Send(NULL, 0, MPI_BYTE, 0, KL_ENS_TAG_REQUEST, MPI_COMM_WORLD);
		int count = range[1] - range[0];
		int header[3] = {range[0], range[1], 1};
		uint32_t* hashes = (uint32_t*)(buffer + sizeof(header));
		float* states = (float*)(hashes + count);
		for (int k = 0; k < count; ++k)
		{
			header[2] &= kl_ens_run_sample(ens, range[0] + k, states + (size_t)k * kl_ens_row(ens), hashes + k);
		}
		memcpy(buffer, header, sizeof(header));
		MPI_Send(buffer, (int)kl_ens_result_bytes(ens, count), MPI_BYTE, 0, KL_ENS_TAG_RESULT, MPI_COMM_WORLD);
		MPI_Recv(range, 2, MPI_INT, 0, KL_ENS_TAG_RANGE, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	}
	free(buffer);
	return true;
}

bool kl_ens_run_mpi(kl_ensemble* ens, char* error, int capacity)
{
	int rank = 0, size = 1;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	bool ok = rank == 0 ? kl_ens_master_run(ens, size - 1) : kl_ens_worker_run(ens);
	if (!ok)
	{
		snprintf(error, (size_t)capacity, "rank %d: a sample failed or memory ran out", rank);
	}
	return ok;
}
